package dev.bpf4j.jit;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The JIT's own guards, without the validator: random slots (uninitialised registers, wild
 * pointers, odd offsets, stray opcodes) either fail to load with a {@link BpfLoadException} or run
 * to r0 / a {@link BpfRuntimeException}. Never a JVM crash, never a hang. Prints the seed on failure.
 */
class UnvalidatedFuzzTest {
    private static final int[] OPCODES = validOpcodes();
    private static final int[] ATOMICS = {ADD, OR, AND, XOR, ADD | FETCH, OR | FETCH, AND | FETCH, XOR | FETCH, XCHG, CMPXCHG};

    private static int[] validOpcodes() {
        List<Integer> ops = new ArrayList<>();
        for (int cls : new int[]{ALU, ALU64}) {
            for (int op : new int[]{ADD, SUB, MUL, DIV, OR, AND, LSH, RSH, MOD, XOR, MOV, ARSH}) { ops.add(cls | op | K); ops.add(cls | op | X); }
            ops.add(cls | NEG);
            ops.add(cls | END);
        }
        ops.add(ALU | END | TO_BE);
        for (int cls : new int[]{JMP, JMP32}) {
            for (int op : new int[]{JEQ, JGT, JGE, JSET, JNE, JSGT, JSGE, JLT, JLE, JSLT, JSLE}) { ops.add(cls | op | K); ops.add(cls | op | X); }
            ops.add(cls | JA);
        }
        ops.add(JMP | CALL);
        ops.add(JMP | EXIT);
        for (int size : new int[]{B, H, W, DW}) {
            ops.add(LDX | MEM | size); ops.add(ST | MEM | size); ops.add(STX | MEM | size);
            if (size != DW) ops.add(LDX | MEMSX | size);
        }
        ops.add(STX | ATOMIC | W); ops.add(STX | ATOMIC | DW);
        ops.add(LDDW);
        return ops.stream().mapToInt(Integer::intValue).toArray();
    }

    @Test
    void randomSlotsNeverCrashTheJvm() {
        long base = Long.getLong("bpf4j.seed", 77L);
        long mem = NativeMemory.allocate(64);
        HelperRegistry h = HelperRegistry.builder().add(1, "id", (call, a, b, c, d, e) -> a).build();
        LoadOptions options = LoadOptions.defaults().withHelpers(h).withEntryArgs(2);
        int loaded = 0, ran = 0;
        try {
            for (int i = 0; i < 3000; i++) {
                long seed = base + i;
                Program p = generate(new Random(seed), mem);
                try (var x = Jit.ENGINE.load(p, options)) {
                    loaded++;
                    try {
                        x.run(RunContext.builder().arg(1, mem).arg(2, 64).region(new MemoryRegion("m", mem, 64, true)).budget(50).build());
                    } catch (BpfRuntimeException expected) {
                        // fine: the run ended with an error
                    }
                    ran++;
                } catch (BpfLoadException rejected) {
                    // fine: the engine refused it with a reason
                } catch (RuntimeException | AssertionError e) {
                    fail("seed " + seed + ": " + e, e);
                }
            }
        } finally {
            NativeMemory.free(mem);
        }
        assertThat(loaded).as("programs the JIT loaded").isGreaterThan(300);
        assertThat(ran).isEqualTo(loaded);
    }

    /** A random program of 6-36 slots (LDDW loads {@code mem}); also {@link ProofWorkTest}'s worst seeds. */
    static Program generate(Random rnd, long mem) {
        List<Insn> out = new ArrayList<>();
        int n = 5 + rnd.nextInt(30);
        for (int i = 0; i < n; i++) {
            int opcode = rnd.nextInt(100) == 0 ? rnd.nextInt(256) : OPCODES[rnd.nextInt(OPCODES.length)];
            int dst = rnd.nextInt(300) == 0 ? rnd.nextInt(16) : rnd.nextInt(10);
            int src = rnd.nextInt(300) == 0 ? rnd.nextInt(16) : rnd.nextInt(11);
            int off = rnd.nextInt(4) == 0 ? rnd.nextInt(65536) - 32768 : rnd.nextInt(17) - 8;
            int cls = opcode & 7, op = opcode & 0xf0;
            if (cls == JMP || cls == JMP32) off = rnd.nextInt(n) - i - 1;                 // mostly inside the program
            if ((cls == ALU || cls == ALU64) && op != MOV && op != DIV && op != MOD) off = 0;
            if ((cls == ALU || cls == ALU64) && (op == DIV || op == MOD)) off = rnd.nextInt(2);
            if ((cls == ALU || cls == ALU64) && op == MOV) off = new int[]{0, 0, 0, 8, 16, 32}[rnd.nextInt(6)];
            int imm = rnd.nextInt(4) == 0 ? rnd.nextInt() : rnd.nextInt(17) - 8;
            if (opcode == (JMP | CALL)) { src = rnd.nextInt(10) == 0 ? 2 : rnd.nextInt(2); imm = src == 0 ? 1 : rnd.nextInt(n) - i - 1; }
            if (opcode == (STX | ATOMIC | W) || opcode == (STX | ATOMIC | DW)) imm = ATOMICS[rnd.nextInt(ATOMICS.length)];
            if ((opcode & 0xf7) == (ALU | END) || opcode == (ALU64 | END)) imm = 16 << rnd.nextInt(3);
            if (opcode == (JMP32 | JA)) imm = off;
            if (rnd.nextInt(200) == 0) dst = 10; // writes to r10 must be refused
            if ((cls == ST || cls == STX) && rnd.nextInt(3) == 0) dst = 10;  // stack stores, some outside the frame
            if (opcode == LDDW) {
                out.add(new Insn(LDDW, dst, 0, 0, (int) mem));
                out.add(new Insn(0, 0, 0, 0, (int) (mem >>> 32)));
                continue;
            }
            out.add(new Insn(opcode & 0xff, dst, src, off, imm));
        }
        out.add(new Insn(JMP | EXIT, 0, 0, 0, 0));
        return new Program("fuzz", out);
    }
}
