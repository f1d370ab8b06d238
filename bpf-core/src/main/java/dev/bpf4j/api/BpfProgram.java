package dev.bpf4j.api;

import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.CpuPin;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.object.ProgramType;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.PacketBuffer;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.verifier.ValidatedProgram;
import dev.bpf4j.verifier.Validator;
import dev.bpf4j.verifier.VerifierException;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A program of a loaded {@link BpfObject}: relocated against the object's maps, validated, and loaded
 * into the object's engine (and into other engines on demand, see {@link RunOptions#engine()}).
 * {@link #run} is {@code BPF_PROG_TEST_RUN}: it builds the program type's context around the given
 * packet / context bytes and reports r0, the packet and context after the run, and the time per run.
 */
public final class BpfProgram implements AutoCloseable {
    private final ProgramSpec spec;
    private final Program program;
    private final LoadOptions loadOptions;
    private final ObjectLoadOptions objectOptions;
    private final MapTable maps;
    /** Whether any helper call may move the packet between runs: then runs go one at a time. */
    private final boolean callsHelpers;
    /** Whether a run can tell CPUs apart (per-CPU maps, the CPU id helpers): then each {@link #run} stays on one CPU. */
    private final boolean cpuSensitive;
    private final Map<String, Executable> executables = new ConcurrentHashMap<>();
    private volatile boolean closed;
    /** What the verifier found: the engines load it (its facts keep non-stack accesses out of frames). */
    private final ValidatedProgram validated;

    /**
     * Validates {@code relocated}, then applies the spin lock rules ({@link SpinLockCheck} follows registers and
     * jumps, so it only ever sees a program whose register numbers, jump targets and lddw pairs are valid).
     */
    BpfProgram(ProgramSpec spec, Program relocated, MapTable maps, LoadOptions loadOptions, ObjectLoadOptions objectOptions,
               Map<String, SpinLockCheck.Target> lockTargets) {
        this.maps = maps;
        this.spec = spec;
        this.program = relocated;
        this.callsHelpers = callsHelpers(relocated);
        this.cpuSensitive = cpuSensitive(relocated, maps);
        this.loadOptions = loadOptions;
        this.objectOptions = objectOptions;
        try {
            this.validated = Validator.analyze(relocated, loadOptions);
        } catch (VerifierException e) {
            throw new BpfLoadException("load program " + spec.describe(e.pc()) + ": " + e.reason(), e);
        }
        SpinLockCheck.check(spec, lockTargets);
        executable(objectOptions.engine());
    }

    public String name() { return spec.name(); }

    public ProgramType type() { return spec.type(); }

    /** The parsed program (map references unresolved, line info). */
    public ProgramSpec spec() { return spec; }

    /** The instructions as loaded: every map {@code lddw} resolved to a handle or value address. */
    public Program program() { return program; }

    /** What the engines load {@link #program()} with: the object's helpers, r1 = ctx, the type's packet context. */
    public LoadOptions loadOptions() { return loadOptions; }

    /** Name of the engine runs use unless {@link RunOptions#engine()} says otherwise. */
    public String engine() { return objectOptions.engine().name(); }

    /** The instruction budget of each run (the object's load option). */
    long budget() { return objectOptions.budget(); }

    /**
     * The executable on the object's engine: what prog-array slots hold (a tail call can only enter a
     * program of the running engine, so tail calls made under an engine override fail with HELPER_FAILED).
     */
    public Executable defaultExecutable() { return executable(objectOptions.engine()); }

    private Executable executable(Engine engine) {
        return executables.computeIfAbsent(engine.name(), n -> {
            try {
                return engine.verifiesItself() ? engine.load(program, loadOptions) : engine.load(validated, loadOptions);
            } catch (VerifierException e) {
                throw new BpfLoadException("load program " + spec.describe(e.pc()) + " into " + n + ": " + e.reason(), e);
            } catch (BpfLoadException e) {
                throw new BpfLoadException("load program '" + spec.name() + "' into " + n + ": " + e.getMessage(), e);
            }
        });
    }

    /**
     * Runs the program {@code options.repeat()} times on one context and packet (each run sees the
     * previous one's changes, as in the kernel). A failing run throws {@link BpfRuntimeException} whose
     * message names the program, pc and source line.
     *
     * @throws dev.bpf4j.runtime.BpfRuntimeException when a run fails (its {@code ErrorKind}, program, pc and source line)
     * @throws IllegalArgumentException              when the test run refuses the input for this program type
     *                                               (data_in too short, a bad ctx_in: the kernel's EINVAL)
     */
    public RunResult run(RunOptions options) {
        if (closed) throw new IllegalStateException("program '" + spec.name() + "' is closed");
        // Linux runs a test run with migration disabled: a thread that moved mid-run would split per-CPU updates
        return cpuSensitive ? CpuPin.onThisCpu(() -> runHere(options)) : runHere(options);
    }

    private RunResult runHere(RunOptions options) {
        Executable exe = options.engineOverride().map(n -> executable(n.equals(engine()) ? objectOptions.engine() : Engines.byName(n)))
                .orElseGet(() -> executable(objectOptions.engine()));
        try (RunFrame frame = ProgramContexts.frame(spec.name(), spec.type(), options)) {
            RunContext context = context(frame);
            PacketBuffer packet = frame.packetBuffer();
            long r0 = 0;
            long start = System.nanoTime();
            if (packet == null || !callsHelpers) {
                r0 = runRepeated(exe, context, options.repeat()); // nothing can move the packet: the engine may loop itself
            } else {
                int version = packet.version();
                for (int i = 0; i < options.repeat(); i++) {
                    if (packet.version() != version) { // a helper moved it: the next run starts there, as in the kernel
                        context = context(frame);
                        version = packet.version();
                    }
                    r0 = runRepeated(exe, context, 1);
                }
            }
            long avg = (System.nanoTime() - start) / options.repeat();
            byte[] data = frame.dataOut();
            if (data != null && options.dataSizeOut() > 0 && data.length > options.dataSizeOut()) {
                data = java.util.Arrays.copyOf(data, options.dataSizeOut());
            }
            return new RunResult(r0 & 0xffffffffL, data, frame.ctxOut(), avg);
        }
    }

    /** True when the program calls any helper (one of them may move the packet between runs). */
    private static boolean callsHelpers(Program program) {
        for (Insn i : program.insns()) {
            if (i.cls() == Opcodes.JMP && Opcodes.op(i.opcode()) == Opcodes.CALL
                    && i.src() != Opcodes.PSEUDO_CALL) return true;
        }
        return false;
    }

    /** Helpers whose result depends on the CPU a run is on: get_smp_processor_id, perf_event_output, get_numa_node_id, per_cpu_ptr, this_cpu_ptr, map_lookup_percpu_elem. */
    private static final java.util.Set<Integer> CPU_HELPERS = java.util.Set.of(8, 25, 42, 153, 154, 195);

    /** True when a run's outcome can depend on which CPU it is on (a prog array or map in map may lead to one that can). */
    private static boolean cpuSensitive(Program program, MapTable maps) {
        for (BpfMap m : maps.maps()) {
            MapType t = m.type();
            if (t.isPercpu() || t.isMapInMap() || t == MapType.PROG_ARRAY || t == MapType.CPUMAP) return true;
        }
        for (Insn i : program.insns()) {
            if (i.cls() == Opcodes.JMP && Opcodes.op(i.opcode()) == Opcodes.CALL
                    && i.src() == 0 && CPU_HELPERS.contains(i.imm())) return true;
        }
        return false;
    }

    private RunContext context(RunFrame frame) {
        RunContext.Builder b = RunContext.builder().arg(1, frame.ctx()).budget(objectOptions.budget());
        for (MemoryRegion r : frame.regions()) b.region(r);
        if (frame.packetLength() > 0) b.packet(frame.packetStart(), frame.packetLength());
        for (MemoryRegion r : maps.regions()) b.region(r);
        return b.packetBuffer(frame.packetBuffer()).build();
    }

    private long runRepeated(Executable exe, RunContext context, int times) {
        try {
            return exe.runRepeated(context, times);
        } catch (BpfRuntimeException e) {
            String where = e.pc() >= 0 ? spec.describe(e.pc()) : spec.name();
            throw new BpfRuntimeException(e.kind(), e.program(), e.pc(), e.address(), e.reason() + " [at " + where + "]");
        }
    }

    @Override public void close() {
        closed = true;
        executables.values().forEach(Executable::close);
        executables.clear();
    }
}
