package dev.bpf4j.stack;

import dev.bpf4j.maps.Errno;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.Frame;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static dev.bpf4j.stack.StackFlags.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs with caller-supplied registers over a stack snapshot: the trace is the unwind from (ip, sp,
 * bp) — exactly the frames built — for the kernel and the user stack alike, under every engine.
 */
class RegistersEnginesTest {
    private static final String[] FUNCS = {"getpid", "malloc", "free", "memcpy", "strlen", "qsort"};

    private static RunContext at(FakeStack s) {
        return RunContext.builder().registers(s.regs()).stackSnapshot(s.memory()).unwinder(FakeStack.UNWINDER).build();
    }

    @Test
    void stackIdIsTheKernelFormulaOverTheUnwoundIpsUnderBothEngines() {
        FakeStack s = FakeStack.of(FakeStack.libcIps(5, FUNCS));
        try (Engines env = new Engines(127, 1000)) {
            for (long flags : new long[] {0, BPF_F_USER_STACK, 2, BPF_F_USER_STACK | 2}) {
                int skip = skip(flags);
                long expected = Jhash.hashIps(s.ips(), skip, s.ips().length - skip) & 1023;
                for (Engine e : Engines.ALL) {
                    assertThat(env.run(e, env.getStackId(flags), at(s))).as("%s flags 0x%x", e, flags).isEqualTo(expected);
                }
                assertThat(env.stacks.ips((int) expected)).hasValueSatisfying(
                        ips -> assertThat(ips).containsExactly(Arrays.copyOfRange(s.ips(), skip, s.ips().length)));
            }
            // kernel and user stack are the same trace: flags 0 and USER_STACK gave one bucket
            assertThat(StackTraceView.of(env.stacks).entries()).hasSize(2);
            int id = (int) (Jhash.hashIps(s.ips(), 0, s.ips().length) & 1023);
            List<Frame> frames = StackTraceView.of(env.stacks).frames(id);
            assertThat(frames.get(0).symbol()).as("getpid or its glibc alias").endsWith("getpid");
            assertThat(frames.get(0).offset()).isEqualTo(5);
            for (int i = 0; i < FUNCS.length; i++) {
                // aliases (e.g. __libc_malloc) may name the same address: compare addresses, not names
                assertThat(frames.get(i).ip()).isEqualTo(s.ips()[i]);
                assertThat(frames.get(i).module()).as(frames.toString()).contains("libc");
            }
        }
    }

    @Test
    void depthCapSkipEfaultAndCollisionsThroughBothEngines() {
        FakeStack s = FakeStack.of(FakeStack.libcIps(5, FUNCS));
        // The two traces stored below (ips 1-2, and ip 5 alone) must land in different buckets, or the
        // second is -EEXIST: the ips depend on where libc is mapped, so size the map until they differ.
        int buckets = 64;
        while (((Jhash.hashIps(s.ips(), 1, 2) ^ Jhash.hashIps(s.ips(), 5, 1)) & (buckets - 1)) == 0) buckets <<= 1;
        try (Engines two = new Engines(2, buckets)) {
            for (Engine e : Engines.ALL) {
                long id = two.run(e, two.getStackId(1), at(s));
                assertThat(two.stacks.ips((int) id)).hasValueSatisfying(ips -> assertThat(ips).containsExactly(s.ips()[1], s.ips()[2]));
                assertThat(two.run(e, two.getStackId(6), at(s))).as("6 ips, skip 6").isEqualTo(-Errno.EFAULT);
                assertThat(two.run(e, two.getStackId(5), at(s))).as("6 ips, skip 5").isGreaterThanOrEqualTo(0);
            }
        }
        // two traces in one bucket of a 2-bucket map: -EEXIST, then REUSE replaces, FAST_STACK_CMP does not help a different hash
        FakeStack a = s;
        FakeStack b = collidingWith(a, 1);
        try (Engines env = new Engines(16, 2)) {
            long idA = Jhash.hashIps(a.ips(), 0, a.ips().length) & 1;
            for (Engine e : Engines.ALL) {
                StackTraceView.of(env.stacks).delete((int) idA);
                assertThat(env.run(e, env.getStackId(0), at(a))).isEqualTo(idA);
                assertThat(env.run(e, env.getStackId(0), at(b))).as(e.toString()).isEqualTo(-Errno.EEXIST);
                assertThat(env.run(e, env.getStackId(BPF_F_FAST_STACK_CMP), at(b))).isEqualTo(-Errno.EEXIST);
                assertThat(env.run(e, env.getStackId(BPF_F_REUSE_STACKID), at(b))).isEqualTo(idA);
                assertThat(env.stacks.ips((int) idA)).hasValueSatisfying(ips -> assertThat(ips).containsExactly(b.ips()));
                assertThat(env.run(e, env.getStackId(0), at(a))).isEqualTo(-Errno.EEXIST);
            }
        }
    }

    @Test
    void getStackCopiesTheUnwoundIpsUnderBothEngines() {
        FakeStack s = FakeStack.of(FakeStack.libcIps(5, FUNCS));
        long buf = NativeMemory.allocate(128);
        try (Engines env = new Engines(8, 8)) {
            RunContext ctx = RunContext.builder().arg(1, buf).region(new MemoryRegion("buf", buf, 128, true))
                    .registers(s.regs()).stackSnapshot(s.memory()).unwinder(FakeStack.UNWINDER).build();
            for (Engine e : Engines.ALL) {
                for (long flags : new long[] {0, BPF_F_USER_STACK, 1, 4}) {
                    NativeMemory.setMemory(buf, 128, (byte) 0x77);
                    long n = env.run(e, Engines.getStack(128, flags), ctx);
                    int skip = skip(flags);
                    assertThat(n).as("%s flags %d", e, flags).isEqualTo(8L * (s.ips().length - skip));
                    for (int i = 0; i < 16; i++) {
                        long want = i < s.ips().length - skip ? s.ips()[skip + i] : 0;
                        assertThat(NativeMemory.getLong(buf + 8L * i)).as("slot %d", i).isEqualTo(want);
                    }
                }
                // buffer smaller than the trace: truncated to it
                assertThat(env.run(e, Engines.getStack(16, 0), ctx)).isEqualTo(16);
                assertThat(NativeMemory.getLong(buf + 8)).isEqualTo(s.ips()[1]);
                // skip == nr: 0 bytes (get_stack only fails when skip exceeds the trace); skip > nr: -EFAULT, cleared
                assertThat(env.run(e, Engines.getStack(128, 6), ctx)).isZero();
                NativeMemory.setMemory(buf, 128, (byte) 0x77);
                assertThat(env.run(e, Engines.getStack(128, 7), ctx)).isEqualTo(-Errno.EFAULT);
                assertThat(NativeMemory.getLong(buf + 120)).isZero();
            }
        } finally {
            NativeMemory.free(buf);
        }
    }

    /** Same length, same bucket of a 2-bucket map, different hash: vary the innermost offset. */
    private static FakeStack collidingWith(FakeStack a, int mask) {
        int want = Jhash.hashIps(a.ips(), 0, a.ips().length) & mask;
        int hashA = Jhash.hashIps(a.ips(), 0, a.ips().length);
        for (int off = 6; ; off++) {
            long[] ips = a.ips().clone();
            ips[0] = ips[0] - 5 + off;
            int h = Jhash.hashIps(ips, 0, ips.length);
            if ((h & mask) == want && h != hashA) return FakeStack.of(ips);
        }
    }
}
