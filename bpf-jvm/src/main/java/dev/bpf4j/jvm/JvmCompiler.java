package dev.bpf4j.jvm;

import dev.bpf4j.analysis.RegionProof;
import dev.bpf4j.analysis.StackProof;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.engine.EngineGuard;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.StackUse;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.LookupInlining;
import dev.bpf4j.helpers.MapHelperInlining;
import dev.bpf4j.verifier.InsnAux;

import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * Compiles a program to bytecode: the engine rules every engine applies at load
 * ({@link EngineGuard}, unknown helpers with the interpreter's words), the facts per pc, then the
 * split into regions (one static method each, every one under HotSpot's 8,000-byte huge-method
 * limit, {@link Regions}) and into parts (one hidden class each, {@link PartAssembler}).
 */
final class JvmCompiler {
    private JvmCompiler() {}

    /** A program of more slots cannot carry its pc in a callback handle. */
    static final int MAX_SLOTS = (1 << JvmProgram.PC_BITS) - 1;
    /** Steps the guarded copy's RegionProof may spend (the JIT's cap is 300,000): the bench's parse needs few. */
    static final int PROOF_STEPS = 10_000;

    static JvmProgram compile(Program program, LoadOptions options, InsnAux aux) { return compile(program, options, aux, true); }

    /** {@code countBudget} false: no budget counted, for runs with at least the verifier's bound (JvmEngine). */
    static JvmProgram compile(Program program, LoadOptions options, InsnAux aux, boolean countBudget) {
        Insn[] insns = program.toArray();
        String name = program.name();
        if (insns.length == 0) throw error(name, 0, "empty program");
        if (insns.length > MAX_SLOTS) throw error(name, 0, "program of " + insns.length + " slots is too large");
        EngineGuard.check(name, insns, options.legacyPacketLoads());
        Facts f = new Facts(name, insns, options, aux, countBudget, null, JvmProgram.newHandleBase());
        JvmProgram checked = define(f);
        boolean[] proven = f.regionProof(options);
        if (proven != null) {
            checked.guarded = define(new Facts(name, insns, options, aux, countBudget, proven, checked.handleBase));
            for (int pc = 0; pc < insns.length; pc++) {
                int cls = insns[pc].cls();
                if (proven[pc] && (cls == ST || cls == STX)) checked.guardWritable = true;
            }
        }
        return checked;
    }

    /** The regions and parts of one compile: its hidden classes. */
    private static JvmProgram define(Facts f) {
        Insn[] insns = f.insns;
        List<int[]> regions = Regions.split(f);
        List<List<int[]>> parts = Regions.parts(regions);
        JvmCode[] code = new JvmCode[parts.size()];
        int[] partOf = parts.size() == 1 ? null : new int[insns.length];
        for (int p = 0; p < parts.size(); p++) {
            List<int[]> rs = parts.get(p);
            code[p] = PartAssembler.define(f, rs);
            if (partOf != null) for (int[] r : rs) Arrays.fill(partOf, r[0], r[1], p);
        }
        f.program.parts = code;
        f.program.partOf = partOf;
        return f.program;
    }

    static BpfLoadException error(String program, int pc, String reason) {
        return new BpfLoadException("program '" + program + "' pc " + pc + ": " + reason);
    }

    /** What the emitters need per pc: instructions, second slots, helpers, entry points, the verifier's facts. */
    static final class Facts {
        final Insn[] insns;
        final boolean[] secondSlot;
        /** Pcs a region must be enterable at from the driver: 0, call targets, return sites, callback targets. */
        final boolean[] alwaysEntry;
        /** Jump targets, by source pc (-1: none). */
        final int[] jumpTarget;
        final JvmProgram program;
        private final InsnAux aux;
        /** Index of each call site's helper in its part's class data; set by {@link PartAssembler}. */
        final int[] helperConstant;
        /** The map each inline-able map-helper call works on ({@link MapHelperInlining}), null elsewhere. */
        final LookupInlining.Target[] inlineMaps;
        /** Index of that map in its part's class data; set by {@link PartAssembler}. */
        final int[] inlineConstant;
        /** False when the code counts no budget: back-edges and calls are plain jumps. */
        final boolean countBudget;
        /** Per pc: an access of main RegionProof proved (the guarded copy), null in the checked code. */
        private final boolean[] regionProven;
        /** Where main ends: the first other function's start, else the program's end. */
        private final int mainEnd;
        /** Main is also a call or callback target: its r1/r2 are then not always the entry's. */
        private final boolean mainIsCalled;

        Facts(String name, Insn[] insns, LoadOptions options, InsnAux aux) {
            this(name, insns, options, aux, true, null, JvmProgram.newHandleBase());
        }

        Facts(String name, Insn[] insns, LoadOptions options, InsnAux aux, boolean countBudget, boolean[] regionProven, long handleBase) {
            this.insns = insns;
            this.countBudget = countBudget;
            this.regionProven = regionProven;
            this.aux = aux;
            int n = insns.length;
            secondSlot = new boolean[n];
            alwaysEntry = new boolean[n];
            jumpTarget = new int[n];
            helperConstant = new int[n];
            inlineConstant = new int[n];
            Arrays.fill(jumpTarget, -1);
            HelperSpec[] helpers = new HelperSpec[n];
            int[] callTarget = new int[n];
            Arrays.fill(callTarget, -1);
            boolean[] callbackTarget = new boolean[n];
            alwaysEntry[0] = true;
            for (int pc = 0; pc < n; pc++) {
                if (secondSlot[pc]) continue;
                Insn in = insns[pc];
                int op = in.opcode();
                if (op == LDDW) {
                    secondSlot[pc + 1] = true;
                    if (in.src() == PSEUDO_FUNC) {
                        callbackTarget[pc + 1 + in.imm()] = true;
                        alwaysEntry[pc + 1 + in.imm()] = true;
                    }
                    continue;
                }
                if (!isJmp(op)) continue;
                if (op(op) == CALL) {
                    if (source(op) == X) continue; // callx: its helper is looked up when it runs
                    if (in.src() == CALL_HELPER) {
                        int id = in.imm();
                        int at = pc;
                        helpers[pc] = options.helpers().lookup(id).orElseThrow(() ->
                                error(name, at, "call to unknown helper id " + id + " (not in LoadOptions.helpers())"));
                    } else { // PSEUDO_CALL (EngineGuard refused the others)
                        callTarget[pc] = pc + 1 + in.imm();
                        alwaysEntry[callTarget[pc]] = true;
                        if (pc + 1 < n) alwaysEntry[pc + 1] = true;
                    }
                } else if (op(op) != EXIT) {
                    jumpTarget[pc] = op == (JMP32 | JA) ? pc + 1 + in.imm() : pc + 1 + in.off();
                }
            }
            boolean[] start = callbackTarget.clone(); // functions: main, call targets, callbacks
            start[0] = true;
            for (int t : callTarget) if (t >= 0) start[t] = true;
            int[] starts = IntStream.range(0, n).filter(pc -> start[pc]).toArray();
            mainEnd = starts.length > 1 ? starts[1] : n;
            mainIsCalled = callbackTarget[0] || Arrays.stream(callTarget).anyMatch(t -> t == 0);
            inlineMaps = MapHelperInlining.targets(insns, helpers, starts, aux);
            program = new JvmProgram(name, n, helpers, options.helpers(), callTarget, callbackTarget, options.entryArgs(),
                    StackUse.bytesToZeroPerFrame(insns, options.helpers()::forwardArguments), aux, handleBase);
        }

        /**
         * The accesses of main {@link RegionProof} proves for the data-buffer entry (r1 = data,
         * r2 = length), as the JIT's guarded copy, but none inside a loop (between a backward jump and
         * its target): there the copy made fnv1a's byte loop slower, not faster (docs/jvm-engine.md).
         * Null when that convention does not apply (or {@code -Dbpf4j.jvm.regionProof=false}), when
         * main is also called, when a helper may move the packet, or when the proof leaves no access
         * unchecked that this (checked) code checks.
         */
        boolean[] regionProof(LoadOptions options) {
            if (options.entryArgs() < 2 || mainIsCalled || RegionProof.packetMayMove(insns)
                    || "false".equals(System.getProperty("bpf4j.jvm.regionProof"))) return null;
            int[] loopEdges = new int[insns.length + 1]; // +1 where a loop starts, -1 after it ends
            for (int pc = 0; pc < insns.length; pc++) {
                if (jumpTarget[pc] >= 0 && jumpTarget[pc] <= pc) {
                    loopEdges[jumpTarget[pc]]++;
                    loopEdges[pc + 1]--;
                }
            }
            boolean[] inLoop = new boolean[insns.length];
            boolean gain = false;
            for (int pc = 0, loops = 0; pc < mainEnd; pc++) {
                loops += loopEdges[pc];
                inLoop[pc] = loops > 0;
                gain |= !inLoop[pc] && uncheckable(pc);
            }
            // the proof explores loops up to its step cap (150 ms for the bench's xorshift): not run when no
            // access could leave its check, and given a thirtieth of the JIT's steps: accesses in loops gain nothing here
            if (!gain) return null;
            boolean[] proven = RegionProof.provenAccesses(insns, 0, mainEnd, new StackProof.Budget(PROOF_STEPS));
            boolean more = false;
            for (int pc = 0; pc < mainEnd; pc++) {
                if (inLoop[pc]) proven[pc] = false;
                else if (proven[pc] && uncheckable(pc)) more = true;
            }
            return more ? proven : null;
        }

        /** A plain load or store this (checked) code checks, which a proof could leave unchecked in the copy. */
        private boolean uncheckable(int pc) {
            int op = insns[pc].opcode(), cls = cls(op);
            return (cls == LDX || cls == ST || cls == STX) && mode(op) == MEM && !program.unchecked[pc];
        }

        boolean stackOnly(int pc) { return aux != null && aux.stackOnly(pc); }
        boolean regionProven(int pc) { return regionProven != null && regionProven[pc]; }
        int unsetArgs(int pc) { return aux == null ? 0 : aux.unsetArgs(pc); }

        int helperConstant(int pc) { return helperConstant[pc]; }

        /** Every jump as {@code target << 32 | source}, sorted: the jumps into a region are one range. */
        private long[] edges;

        /** The pcs of {@code [start, end)} the driver may enter at, sorted: its start, {@link #alwaysEntry}, targets of jumps from outside. */
        int[] entries(int start, int end) {
            if (edges == null) {
                edges = IntStream.range(0, insns.length).filter(pc -> jumpTarget[pc] >= 0)
                        .mapToLong(pc -> (long) jumpTarget[pc] << 32 | pc).sorted().toArray();
            }
            boolean[] e = new boolean[end - start];
            e[0] = true;
            for (int pc = start; pc < end; pc++) if (alwaysEntry[pc]) e[pc - start] = true;
            int i = Arrays.binarySearch(edges, (long) start << 32);
            for (i = i < 0 ? -i - 1 : i; i < edges.length && (int) (edges[i] >>> 32) < end; i++) {
                int t = (int) (edges[i] >>> 32), from = (int) edges[i];
                if (from < start || from >= end) e[t - start] = true;
            }
            return IntStream.range(start, end).filter(pc -> e[pc - start] && !secondSlot[pc]).toArray();
        }
    }
}
