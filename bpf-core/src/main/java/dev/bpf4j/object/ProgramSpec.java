package dev.bpf4j.object;

import dev.bpf4j.btf.CoreRelocation;
import dev.bpf4j.btf.FuncInfo;
import dev.bpf4j.btf.LineInfo;
import dev.bpf4j.program.Program;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An immutable program parsed from an object: its entry function with every subprogram it calls
 * appended and linked (bpf-to-bpf calls pc-relative, as libbpf leaves them for the kernel), and the
 * map references its {@code lddw}s still need.
 *
 * @param name          the function name (ELF symbol)
 * @param section       the ELF section ("xdp", "kprobe/do_unlinkat", ...)
 * @param attachTarget  what the section names after the type prefix ("do_unlinkat"), or ""
 * @param functions     the entry function and each appended subprogram, in program order
 * @param funcInfos     BTF func_info, pcs in this program (empty without .BTF.ext)
 * @param lineInfos     BTF line_info sorted by pc (empty without .BTF.ext)
 * @param coreRelocations CO-RE relocations, pcs in this program, sorted; not applied yet
 */
public record ProgramSpec(String name, String section, ProgramType type, AttachType attachType,
                          String attachTarget, boolean sleepable, Program program,
                          List<MapReference> mapReferences, List<FunctionSpec> functions,
                          List<FuncInfo> funcInfos, List<LineInfo> lineInfos, List<CoreRelocation> coreRelocations) {
    public ProgramSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(attachType, "attachType");
        Objects.requireNonNull(program, "program");
        mapReferences = List.copyOf(mapReferences);
        functions = List.copyOf(functions);
        funcInfos = List.copyOf(funcInfos);
        lineInfos = List.copyOf(lineInfos);
        coreRelocations = List.copyOf(coreRelocations);
    }

    /** False for a section named {@code ?type}: libbpf opens such programs but does not load them by default. */
    public boolean autoload() { return !section.startsWith("?"); }

    /** Number of instruction slots (an lddw counts two). */
    public int length() { return program.length(); }

    /**
     * The source line that instruction {@code pc} belongs to: the last line_info at or before it. Empty when
     * that entry has line 0: clang's mark for code that belongs to no source line (e.g. merged epilogues),
     * which would only print as {@code file.c:0:0} with no text.
     */
    public Optional<LineInfo> lineAt(int pc) {
        int lo = 0, hi = lineInfos.size() - 1, found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (lineInfos.get(mid).insnIndex() <= pc) { found = mid; lo = mid + 1; } else hi = mid - 1;
        }
        return found < 0 || lineInfos.get(found).line() == 0 ? Optional.empty() : Optional.of(lineInfos.get(found));
    }

    /** The function (entry or subprogram) whose code contains {@code pc}. */
    public Optional<FunctionSpec> functionAt(int pc) {
        for (FunctionSpec f : functions) if (pc >= f.pc() && pc < f.pc() + f.length()) return Optional.of(f);
        return Optional.empty();
    }

    /**
     * Where {@code pc} is, for messages: "xdp_prog pc 14 (square+1, ./src/subprog.c:8:9: return x * x;)".
     * Parts that are unknown (no BTF line info) are left out.
     */
    public String describe(int pc) {
        StringBuilder b = new StringBuilder(name).append(" pc ").append(pc);
        List<String> where = new java.util.ArrayList<>();
        functionAt(pc).filter(f -> f.pc() != 0 || !f.name().equals(name)).ifPresent(f -> where.add(f.name() + "+" + (pc - f.pc())));
        lineAt(pc).ifPresent(l -> where.add(l.location() + ": " + l.sourceLine().strip()));
        if (!where.isEmpty()) b.append(" (").append(String.join(", ", where)).append(')');
        return b.toString();
    }

    public Optional<MapReference> mapReferenceAt(int pc) {
        for (MapReference r : mapReferences) if (r.pc() == pc) return Optional.of(r);
        return Optional.empty();
    }

    public ProgramSpec withType(ProgramType t) {
        return new ProgramSpec(name, section, t, attachType, attachTarget, sleepable, program, mapReferences, functions, funcInfos, lineInfos, coreRelocations);
    }

    /** libbpf's bpf_program__set_autoload: the section without its {@code ?} (autoload on), or with one (off). */
    public ProgramSpec withAutoload(boolean on) {
        if (on == autoload()) return this;
        String s = on ? section.substring(1) : "?" + section;
        return new ProgramSpec(name, s, type, attachType, attachTarget, sleepable, program, mapReferences, functions, funcInfos, lineInfos, coreRelocations);
    }

    public ProgramSpec withAttachType(AttachType t) {
        return new ProgramSpec(name, section, type, t, attachTarget, sleepable, program, mapReferences, functions, funcInfos, lineInfos, coreRelocations);
    }
}
