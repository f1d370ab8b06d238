package dev.bpf4j.kernel;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The kernel's helper ids and names ({@code enum bpf_func_id}, from the resource {@code helpers.txt}
 * generated from include/uapi/linux/bpf.h). In the kernel engine a {@code call imm} always calls the
 * kernel's helper {@code imm}; when the program's {@link HelperRegistry} gives that id to a helper
 * with another name (the conformance suites' helper 5 {@code unwind} is the kernel's
 * {@code ktime_get_ns}), the results would not be comparable, so the load is refused.
 */
public final class KernelHelpers {
    private KernelHelpers() {}

    private static final Map<Integer, String> NAMES = load();

    private static Map<Integer, String> load() {
        Map<Integer, String> m = new HashMap<>();
        try (InputStream in = KernelHelpers.class.getResourceAsStream("helpers.txt")) {
            if (in == null) throw new IllegalStateException("resource dev/bpf4j/kernel/helpers.txt is missing");
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line; (line = r.readLine()) != null; ) {
                if (line.isBlank() || line.startsWith("#")) continue;
                String[] f = line.trim().split("\\s+");
                m.put(Integer.parseInt(f[0]), f[1]);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.copyOf(m);
    }

    /** The kernel's name of helper {@code id} without the {@code bpf_} prefix, e.g. {@code ktime_get_ns}. */
    public static Optional<String> name(int id) { return Optional.ofNullable(NAMES.get(id)); }

    /** Throws {@link KernelLoadException} when a helper call in {@code program} means different helpers in {@code registry} and in the kernel. */
    static void checkComparable(Program program, HelperRegistry registry) {
        for (int pc = 0; pc < program.length(); pc++) {
            Insn insn = program.insn(pc);
            if (insn.opcode() != (Opcodes.JMP | Opcodes.CALL) || insn.src() != Opcodes.CALL_HELPER) continue;
            Optional<HelperSpec> ours = registry.lookup(insn.imm());
            Optional<String> kernel = name(insn.imm());
            if (ours.isPresent() && kernel.isPresent() && !strip(ours.get().name()).equals(kernel.get())) {
                throw new KernelLoadException("program '" + program.name() + "' pc " + pc + ": helper " + insn.imm()
                        + " is '" + ours.get().name() + "' in the registry but 'bpf_" + kernel.get()
                        + "' in the kernel: the kernel engine cannot run this program comparably");
            }
        }
    }

    private static String strip(String name) { return name.startsWith("bpf_") ? name.substring(4) : name; }
}
