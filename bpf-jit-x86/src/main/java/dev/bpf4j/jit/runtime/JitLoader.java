package dev.bpf4j.jit.runtime;

import dev.bpf4j.engine.EngineGuard;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.jit.compiler.CompileOptions;
import dev.bpf4j.jit.compiler.CompiledProgram;
import dev.bpf4j.jit.compiler.JitCompiler;
import dev.bpf4j.jit.compiler.Switches;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.NativeForm;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.unwind.perf.PerfInterop;
import dev.bpf4j.verifier.InsnAux;
import dev.bpf4j.verifier.ValidatedProgram;
import dev.bpf4j.verifier.VerifierStats;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@link JitEngine} does, with the JIT's own types: binds each helper, compiles and maps the
 * code. The engine hands out only {@code Executable}; bpf4j's tools and tests that read code regions,
 * layouts or bindings load through this class instead of casting.
 */
public final class JitLoader {
    private final Map<Integer, HelperBinding> nativeHelpers;

    public JitLoader() { this(Map.of()); }

    private JitLoader(Map<Integer, HelperBinding> nativeHelpers) { this.nativeHelpers = Map.copyOf(nativeHelpers); }

    /** A copy of this loader that calls native code at {@code binding.address()} for helper {@code binding.id()}. */
    public JitLoader withNativeHelper(HelperBinding binding) {
        Map<Integer, HelperBinding> m = new HashMap<>(nativeHelpers);
        m.put(binding.id(), binding);
        return new JitLoader(m);
    }

    public JitExecutable load(Program program, LoadOptions options) {
        guard(program, options);
        return load(program, options, null, false);
    }

    /** A verified program: its facts keep every access the verifier did not type as a stack pointer out of the frames. */
    public JitExecutable load(ValidatedProgram program, LoadOptions options) {
        guard(program.program(), options);
        boolean elide = elides(program);
        JitExecutable x = load(program.program(), options, program.aux(), elide);
        // Runs (and tail calls) with less budget than the bound need the counting code: compiled when first needed.
        if (elide) x.elideBudget(program.stats().budgetBound(), () -> load(program.program(), options, program.aux(), false));
        return x;
    }

    /** Compiles without mapping the code: the machine code and its layout (for disassemblers and tests). */
    public CompiledProgram compile(Program program, LoadOptions options) {
        guard(program, options);
        return JitCompiler.compile(program, compileOptions(bindHelpers(program, options, new HashMap<>()), options));
    }

    /**
     * Compiles a verified program as {@link #load(ValidatedProgram, LoadOptions)} does, without mapping the code:
     * with the verifier's facts, and without budget counting where the verifier bounded the run.
     */
    public CompiledProgram compile(ValidatedProgram program, LoadOptions options) {
        guard(program.program(), options);
        return JitCompiler.compile(program.program(), compileOptions(bindHelpers(program.program(), options, new HashMap<>()), options)
                .withAux(program.aux()).withElideBudget(elides(program)));
    }

    /** The verifier bounded the run's budget events, so the code need not count them. */
    private static boolean elides(ValidatedProgram program) {
        VerifierStats stats = program.stats();
        return stats != null && stats.bounded() && Switches.on("bpf4j.jit.elideBudget");
    }

    /**
     * The engines' shared load rules, once per load (the budget-counting recompile of an elided
     * program and the compile itself rely on it): first, so that a program with several faults
     * fails alike in each engine.
     */
    private static void guard(Program program, LoadOptions options) {
        EngineGuard.check(program.name(), program.toArray(), options.legacyPacketLoads());
    }

    /** {@code elideBudget}: compile without budget counting (the verifier bounded the program's budget events). */
    private JitExecutable load(Program program, LoadOptions options, InsnAux aux, boolean elideBudget) {
        Map<Integer, HelperSpec> javaHelpers = new HashMap<>();
        Map<Integer, HelperBinding> bindings = bindHelpers(program, options, javaHelpers);
        CompiledProgram compiled = JitCompiler.compile(program, compileOptions(bindings, options)
                .withAux(aux).withElideBudget(elideBudget));
        // Perf writers listen to the code map, so they are on before this program's regions register.
        if (options.perfMap()) PerfInterop.enablePerfMap();
        if (PerfInterop.jitDumpRequested()) PerfInterop.enableJitDump();
        return new JitExecutable(program, compiled, javaHelpers, bindings, options.entryArgs(), options.legacyPacketLoads());
    }

    private static CompileOptions compileOptions(Map<Integer, HelperBinding> bindings, LoadOptions options) {
        return CompileOptions.of(bindings, options.entryArgs()).withLegacyPacketLoads(options.legacyPacketLoads())
                .withPacketContext(options.packetContext()).withGuarded(true);
    }

    /** The target of every helper the program calls; Java helpers are also collected into {@code javaHelpers}. */
    private Map<Integer, HelperBinding> bindHelpers(Program program, LoadOptions options, Map<Integer, HelperSpec> javaHelpers) {
        Map<Integer, HelperBinding> bindings = new HashMap<>();
        List<Insn> insns = program.insns();
        for (int pc = 0; pc < insns.size(); pc++) {
            Insn i = insns.get(pc);
            if (i.opcode() == (Opcodes.JMP | Opcodes.CALL) && i.src() == Opcodes.CALL_HELPER) {
                int id = i.imm();
                if (!bindings.containsKey(id)) bindings.put(id, bind(program, pc, id, options, javaHelpers));
            }
            if (i.opcode() == (Opcodes.JMP | Opcodes.CALL | Opcodes.X) && !bindings.containsKey(HelperBinding.CALLX)) {
                // callx may call any helper of the load, by its Java body, through the bridge
                for (HelperSpec h : options.helpers().all()) javaHelpers.put(h.id(), h);
                bindings.put(HelperBinding.CALLX, new HelperBinding(HelperBinding.CALLX, "callx", HelperUpcall.address(), true, null));
            }
            if (i.isLddw()) pc++;
        }
        return bindings;
    }

    private HelperBinding bind(Program program, int pc, int id, LoadOptions options, Map<Integer, HelperSpec> javaHelpers) {
        HelperBinding nativeBinding = nativeHelpers.get(id);
        if (nativeBinding != null) return nativeBinding;
        Optional<HelperSpec> spec = options.helpers().lookup(id);
        if (spec.isEmpty()) {
            throw new BpfLoadException("program '" + program.name() + "' pc " + pc + ": unknown helper id " + id);
        }
        NativeForm form = spec.get().nativeForm();
        if (form != null && NativeForms.enabled() && !NativeForms.isFastPath(form)) return NativeForms.bind(spec.get());
        if ((id == HelperIds.GET_STACKID || id == HelperIds.GET_STACK) && NativeStackId.applies(spec.get())) {
            javaHelpers.put(id, spec.get());   // the native code hands what it cannot answer to the Java body
            return NativeStackId.bind(spec.get());
        }
        javaHelpers.put(id, spec.get());
        if (form != null && NativeForms.enabled()) return NativeForms.bindWithFastPath(spec.get());
        return new HelperBinding(id, spec.get().name(), HelperUpcall.address(), true, null, spec.get().lookupInlining(),
                spec.get().forwardArguments());
    }
}
