package dev.bpf4j.jit;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Every atomic operation, both widths, every src register (r0 included), through a region and the stack. */
class AtomicTest {
    private static final int[] OPS = {ADD, OR, AND, XOR, ADD | FETCH, OR | FETCH, AND | FETCH, XOR | FETCH, XCHG, CMPXCHG};
    private long mem;

    @BeforeEach void alloc() { mem = NativeMemory.allocate(64); }
    @AfterEach void free() { NativeMemory.free(mem); }

    private static long apply(int op, long m, long s) {
        switch (op & ~FETCH) {
            case ADD: return m + s;
            case OR: return m | s;
            case AND: return m & s;
            case XOR: return m ^ s;
            default: throw new IllegalArgumentException();
        }
    }

    @Test
    void everyOperationEveryRegister() {
        long memInit = 0xf0f0f0f0_12345678L;
        for (int op : OPS) for (int size : new int[]{W, DW}) for (int src = 0; src <= 9; src++) {
            int base = src == 7 ? 8 : 7;
            for (boolean equal : new boolean[]{true, false}) {
                boolean w = size == DW;
                long[] init = new long[10];
                for (int r = 0; r <= 9; r++) init[r] = 0x1111111111111111L * (r + 1);
                init[base] = mem + 8;
                long r0 = equal ? (w ? memInit : (memInit & 0xffffffffL) | 0xabcd000000000000L) : 77;
                init[0] = r0;
                long s = init[src];
                NativeMemory.putLong(mem + 8, memInit);
                long[] got = AluTest.regsAfter(init, List.of(new MemoryRegion("m", mem, 64, true)),
                        atomic(size, base, src, 0, op));
                long old = w ? memInit : memInit & 0xffffffffL;
                long[] expect = init.clone();
                long newMem;
                if (op == XCHG) {
                    newMem = s;
                    expect[src] = old;
                } else if (op == CMPXCHG) {
                    boolean eq = w ? r0 == memInit : (int) r0 == (int) memInit;
                    newMem = eq ? s : old;
                    expect[0] = old;
                } else {
                    newMem = apply(op, old, s);
                    if ((op & FETCH) != 0) expect[src] = old;
                }
                long expectMem = w ? newMem : (memInit & 0xffffffff00000000L) | (newMem & 0xffffffffL);
                String what = String.format("op 0x%x size %d src r%d equal=%b", op, size, src, equal);
                for (int r = 0; r <= 9; r++) assertThat(got[r]).as(what + " r" + r).isEqualTo(expect[r]);
                assertThat(NativeMemory.getLong(mem + 8)).as(what + " memory").isEqualTo(expectMem);
            }
        }
    }

    @Test
    void misalignedAtomicsEndTheRunAfterTheBoundsCheck() {
        var region = new MemoryRegion("m", mem, 64, true);
        for (int size : new int[]{W, DW}) {
            for (int off : new int[]{1, 2, 3, 6}) {
                if (size == W && off % 4 == 0) continue;
                var p = prog("mis", lddw(1, mem), mov64(2, 1), atomic(size, 1, 2, off, ADD), mov64(0, 0), exit());
                var e = org.assertj.core.api.Assertions.catchThrowableOfType(
                        () -> Jit.run(p, dev.bpf4j.runtime.LoadOptions.defaults(), dev.bpf4j.runtime.RunContext.builder().region(region).build()),
                        dev.bpf4j.runtime.BpfRuntimeException.class);
                assertThat(e.kind()).isEqualTo(dev.bpf4j.runtime.ErrorKind.MISALIGNED_ATOMIC);
                assertThat(e.pc()).isEqualTo(3);
                assertThat(e.address()).isEqualTo(mem + off);
            }
        }
        // Out of bounds wins over misaligned: the bounds check comes first.
        var oob = prog("mis-oob", lddw(1, mem), mov64(2, 1), atomic(DW, 1, 2, 61, ADD), mov64(0, 0), exit());
        var e = org.assertj.core.api.Assertions.catchThrowableOfType(
                () -> Jit.run(oob, dev.bpf4j.runtime.LoadOptions.defaults(), dev.bpf4j.runtime.RunContext.builder().region(region).build()),
                dev.bpf4j.runtime.BpfRuntimeException.class);
        assertThat(e.kind()).isEqualTo(dev.bpf4j.runtime.ErrorKind.OUT_OF_BOUNDS);
        // A misaligned r10-relative atomic is checked at run time too.
        var stack = prog("mis-stack", mov64(2, 1), atomic(DW, 10, 2, -12, ADD), mov64(0, 0), exit());
        e = org.assertj.core.api.Assertions.catchThrowableOfType(() -> Jit.run(stack), dev.bpf4j.runtime.BpfRuntimeException.class);
        assertThat(e.kind()).isEqualTo(dev.bpf4j.runtime.ErrorKind.MISALIGNED_ATOMIC);
        assertThat(e.pc()).isEqualTo(1);
    }

    @Test
    void onTheStack() {
        // *(u64 *)(r10 - 8) = 5; lock *(u64 *)(r10 - 8) += 3; r1 = 10; r1 = atomic_fetch_add(r10 - 8, r1); r0 = r1 + *(r10 - 8)
        long r = Jit.run(prog("stack", st(DW, 10, -8, 5), mov64(1, 3), atomic(DW, 10, 1, -8, ADD),
                mov64(1, 10), atomic(DW, 10, 1, -8, ADD | FETCH),
                mov64(0, 18), atomic(DW, 10, 1, -8, CMPXCHG),      // r0 == 18: store r1 (8)
                ldx(DW, 2, 10, -8), alu64r(MUL, 0, 2), exit()));
        assertThat(r).isEqualTo(18 * 8);
    }

    @Test
    void atomicIsAtomicAcrossThreads() throws Exception {
        NativeMemory.putLong(mem, 0);
        var prog = prog("inc", lddw(1, mem), mov64(2, 1000), mov64(3, 1),
                atomic(DW, 1, 3, 0, ADD), alu64(SUB, 2, 1), jmp(JNE, 2, 0, -3), mov64(0, 0), exit());
        var region = new MemoryRegion("m", mem, 64, true);
        try (var x = Jit.ENGINE.load(prog, dev.bpf4j.runtime.LoadOptions.defaults())) {
            Thread[] ts = new Thread[4];
            for (int t = 0; t < ts.length; t++) {
                ts[t] = new Thread(() -> { for (int i = 0; i < 200; i++) x.run(dev.bpf4j.runtime.RunContext.builder().region(region).build()); });
                ts[t].start();
            }
            for (Thread t : ts) t.join();
        }
        assertThat(NativeMemory.getLong(mem)).isEqualTo(4L * 200 * 1000);
    }
}
