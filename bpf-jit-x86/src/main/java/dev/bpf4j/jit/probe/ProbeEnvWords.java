package dev.bpf4j.jit.probe;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.compiler.EnvLayout;
import dev.bpf4j.jit.compiler.ProofSites;
import dev.bpf4j.jit.compiler.Switches;
import dev.bpf4j.program.Program;

import java.util.BitSet;

/**
 * Which words of a direct call's env block the trampoline must store on each hit: the JIT code of a
 * program without calls reads only the run's state, its arguments and, when it has a checked memory
 * access, the region words (every other word belongs to helpers, callbacks, tail calls and LD ABS/IND).
 * An empty program's hit stores 12 words instead of 38, about 3 ns (docs/native-probes.md). Readers, by
 * emitter: FrameEmitter (BUDGET, ARGS; the frame words it sets itself), StubEmitter (the error words it
 * writes; MEM_CHECK: regions, SCRATCH_BASE/LIVE), MemoryEmitter and EntryGuard (FAST_*, regions, CTX_DATA
 * within ARGS), CallEmitter, CallbackEntryEmitter and UpcallEmitter (calls only), LegacyLoadEmitter (LD ABS/IND).
 */
final class ProbeEnvWords {
    private ProbeEnvWords() {}

    /** The words to store, as indexes into a block of {@code words} qwords; all of them with {@code -Dbpf4j.probe.trimEnv=false}. */
    static BitSet stored(Program program, ProofSites proofs, int words) {
        BitSet all = new BitSet(words);
        all.set(0, words);
        if (!Switches.on("bpf4j.probe.trimEnv")) return all;                                  // for A/B timing and tests
        boolean checked = proofs.hasGuardedCopy();
        for (int pc = 0; pc < program.length(); pc++) {
            Insn i = program.insn(pc);
            int cls = i.cls(), mode = Opcodes.mode(i.opcode());
            if (Opcodes.isJmp(i.opcode()) && Opcodes.op(i.opcode()) == Opcodes.CALL) return all;    // helpers, subprograms, kfuncs
            if (i.isLddw() && i.src() == Opcodes.PSEUDO_FUNC) return all;                             // a callback
            if (cls == Opcodes.LD && (mode == Opcodes.ABS || mode == Opcodes.IND)) return all;        // the packet words
            if (cls == Opcodes.LDX || cls == Opcodes.ST || cls == Opcodes.STX) {
                int base = cls == Opcodes.LDX ? i.src() : i.dst();
                checked |= proofs.checks(pc, base, i.off(), Opcodes.sizeBytes(i.opcode()));
            }
            if (i.isLddw()) pc++;
        }
        BitSet s = new BitSet(words);
        s.set(EnvLayout.STATUS / 8, EnvLayout.DEPTH / 8 + 1);           // status, error words, budget, entry rbp, depth
        s.set(EnvLayout.ARGS / 8, EnvLayout.ARGS / 8 + 5);              // r1..r5 as the prologue loads them (CTX_DATA within)
        if (checked) {
            s.set(EnvLayout.FAST_R_START / 8, EnvLayout.FAST_W_LAST / 8 + 1);
            s.set(EnvLayout.SCRATCH_BASE / 8, EnvLayout.SCRATCH_LIVE / 8 + 1);
            s.set(EnvLayout.REGION_COUNT / 8);
            s.set(EnvLayout.REGIONS / 8, words);
        }
        return s;
    }
}
