package dev.bpf4j.object;

import dev.bpf4j.elf.ElfSection;
import dev.bpf4j.isa.Insn;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The decoded instructions of one executable section and the relocations that apply to them. */
final class CodeSection {
    final ElfSection section;
    final Insn[] insns;
    /** The functions of this section, sorted by start and not overlapping. */
    final List<Function> functions = new ArrayList<>();
    /** Instruction index in the section to what its relocation resolved to. */
    final Map<Integer, Reloc> relocs = new HashMap<>();

    CodeSection(ElfSection section, Insn[] insns) {
        this.section = section;
        this.insns = insns;
    }

    String name() { return section.name(); }

    /** The function containing instruction {@code insn}, or null (binary search: sections may hold many functions). */
    Function functionAt(long insn) {
        int lo = 0, hi = functions.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            Function f = functions.get(mid);
            if (insn < f.start()) hi = mid - 1;
            else if (insn >= f.start() + f.length()) lo = mid + 1;
            else return f;
        }
        return null;
    }

    /** What one relocation of a code section means once its symbol is resolved. */
    sealed interface Reloc {
        /** A bpf-to-bpf call to instruction {@code target} of {@code .text}. */
        record Call(int target, String symbol) implements Reloc {}

        /** An lddw of a function's address (callbacks): {@code BPF_PSEUDO_FUNC} to instruction {@code target} of {@code .text}. */
        record FuncAddr(int target, String symbol) implements Reloc {}

        /** An lddw of a map or of an address in a global-data map. */
        record MapRef(MapReference.Kind kind, String map, int offset, String symbol) implements Reloc {}
    }
}
