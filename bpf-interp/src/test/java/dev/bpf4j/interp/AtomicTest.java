package dev.bpf4j.interp;

import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import static dev.bpf4j.interp.Asm.*;
import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** BPF_ATOMIC: every operation, 32 and 64 bits, fetch results, cmpxchg, and real atomicity. */
class AtomicTest {
    long mem;

    @BeforeEach void allocate() { mem = NativeMemory.allocate(16); }
    @AfterEach void free() { NativeMemory.free(mem); }

    RunContext ctx() {
        return RunContext.builder().arg(1, mem).region(new MemoryRegion("map value", mem, 16, true)).build();
    }

    static final long OLD = 0xf0f0_f0f0_0000_000cL;

    static Stream<Arguments> operations() {
        long s = 0x0f0f_0f0f_8000_000aL;
        return Stream.of(
                // op, size, src, memory after, src after (fetch)
                arguments("add64", ADD, DW, s, OLD + s, s),
                arguments("or64", OR, DW, s, OLD | s, s),
                arguments("and64", AND, DW, s, OLD & s, s),
                arguments("xor64", XOR, DW, s, OLD ^ s, s),
                arguments("fetch_add64", ADD | FETCH, DW, s, OLD + s, OLD),
                arguments("fetch_or64", OR | FETCH, DW, s, OLD | s, OLD),
                arguments("fetch_and64", AND | FETCH, DW, s, OLD & s, OLD),
                arguments("fetch_xor64", XOR | FETCH, DW, s, OLD ^ s, OLD),
                arguments("xchg64", XCHG, DW, s, s, OLD),
                // 32-bit: only the low word changes; fetched values are zero-extended
                arguments("add32", ADD, W, s, 0xf0f0_f0f0_8000_0016L, s),
                arguments("or32", OR, W, s, 0xf0f0_f0f0_8000_000eL, s),
                arguments("and32", AND, W, s, 0xf0f0_f0f0_0000_0008L, s),
                arguments("xor32", XOR, W, s, 0xf0f0_f0f0_8000_0006L, s),
                arguments("fetch_add32", ADD | FETCH, W, s, 0xf0f0_f0f0_8000_0016L, 0xcL),
                arguments("fetch_xor32", XOR | FETCH, W, -1L, 0xf0f0_f0f0_ffff_fff3L, 0xcL),
                arguments("xchg32", XCHG, W, s, 0xf0f0_f0f0_8000_000aL, 0xcL));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("operations")
    void operation(String name, int op, int size, long src, long memAfter, long srcAfter) {
        NativeMemory.putLong(mem + 8, OLD);
        long r = Runner.run(prog(lddw(2, src), atomic(size, 1, 2, 8, op), movr(0, 2), exit()), ctx());
        assertThat(NativeMemory.getLong(mem + 8)).as(name + " memory").isEqualTo(memAfter);
        assertThat(r).as(name + " src").isEqualTo(srcAfter);
    }

    @Test
    void cmpxchg64() {
        NativeMemory.putLong(mem, OLD);
        // r0 = OLD matches: store src, r0 = old
        assertThat(Runner.run(prog(lddw(0, OLD), mov(2, 5), atomic(DW, 1, 2, 0, CMPXCHG), exit()), ctx())).isEqualTo(OLD);
        assertThat(NativeMemory.getLong(mem)).isEqualTo(5);
        // r0 = 6 does not match: memory unchanged, r0 = current
        assertThat(Runner.run(prog(mov(0, 6), mov(2, 7), atomic(DW, 1, 2, 0, CMPXCHG), exit()), ctx())).isEqualTo(5);
        assertThat(NativeMemory.getLong(mem)).isEqualTo(5);
    }

    @Test
    void cmpxchg32ComparesTheLowHalfAndZeroExtends() {
        NativeMemory.putLong(mem, 0x1234_5678_ffff_fffeL);
        // r0's upper half is ignored by the compare
        assertThat(Runner.run(prog(lddw(0, 0x7777_7777_ffff_fffeL), mov(2, 9), atomic(W, 1, 2, 0, CMPXCHG), exit()), ctx()))
                .isEqualTo(0xffff_fffeL);
        assertThat(NativeMemory.getLong(mem)).isEqualTo(0x1234_5678_0000_0009L);
        assertThat(Runner.run(prog(mov(0, 1), mov(2, 3), atomic(W, 1, 2, 0, CMPXCHG), exit()), ctx())).isEqualTo(9);
        assertThat(NativeMemory.getLong(mem)).isEqualTo(0x1234_5678_0000_0009L);
    }

    @Test
    void atomicsOnTheStack() {
        // [r10-8] = 40; lock [r10-8] += 2 (fetch into r2); r0 = [r10-8] + r2 = 42 + 40
        assertThat(Runner.run(prog(st(DW, 10, -8, 40), mov(2, 2), atomic(DW, 10, 2, -8, ADD | FETCH),
                ldx(DW, 0, 10, -8), alu64(ADD, 0, 2), exit()))).isEqualTo(82);
    }

    @Test
    void outOfBoundsAtomicTouchesNothing() {
        Errors.outOfBounds(1, mem + 12, () -> Runner.run(prog(mov(2, 1), atomic(DW, 1, 2, 12, ADD), exit()), ctx()));
        assertThat(NativeMemory.getLong(mem + 8)).isZero();
    }

    @Test
    void misalignedAtomicIsAnErrorAndTouchesNothing() {
        assertThatThrownBy(() -> Runner.run(prog(mov(2, 1), atomic(DW, 1, 2, 4, ADD), exit()), ctx()))
                .isInstanceOfSatisfying(BpfRuntimeException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.MISALIGNED_ATOMIC);
                    assertThat(e.pc()).isEqualTo(1);
                    assertThat(e.address()).isEqualTo(mem + 4);
                });
        assertThatThrownBy(() -> Runner.run(prog(mov(2, 1), atomic(W, 1, 2, 2, ADD), exit()), ctx()))
                .isInstanceOfSatisfying(BpfRuntimeException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.MISALIGNED_ATOMIC));
        assertThat(NativeMemory.getLong(mem)).isZero();
        assertThat(NativeMemory.getLong(mem + 8)).isZero();
    }

    @Test
    void concurrentAddsFromTwoThreadsAreAtomic() throws Exception {
        int iterations = 100_000;
        // r2 = n; loop: lock [r1] += 1; lock32 [r1+8] += 1; r2 -= 1; if r2 != 0 goto loop; exit
        var p = prog(mov(2, iterations), mov(3, 1), atomic(DW, 1, 3, 0, ADD), atomic(W, 1, 3, 8, ADD),
                alu64i(SUB, 2, 1), jmpi(JNE, 2, 0, -4), mov(0, 0), exit());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Executable e = Runner.load(p)) {
            Callable<Long> task = () -> e.run(ctx());
            Future<Long> a = pool.submit(task), b = pool.submit(task);
            a.get();
            b.get();
        } finally {
            pool.shutdown();
        }
        assertThat(NativeMemory.getLong(mem)).isEqualTo(2L * iterations);
        assertThat(NativeMemory.getInt(mem + 8)).isEqualTo(2 * iterations);
    }
}
