package dev.bpf4j.stack;

import dev.bpf4j.asm.Assembler;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.Frame;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.stack.StackFlags.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs without registers: the user stack is the Java call path that called {@code run}, the same
 * under the interpreter and the JIT, with no engine frame in it.
 */
class JavaCallerStackEnginesTest {
    private static final RunContext PLAIN = RunContext.builder().build();
    private static final String ME = JavaCallerStackEnginesTest.class.getName();

    private static long helperB(Executable x) { return x.run(PLAIN); }

    private static long helperA(Executable x) { return helperB(x); }

    @Test
    void theTraceIsTheJavaCallPathInnermostFirstAndEngineIndependent() {
        try (Engines env = new Engines(127, 64)) {
            List<Long> ids = new ArrayList<>();
            for (Engine e : Engines.ALL) {
                try (Executable x = env.load(e, env.getStackId(BPF_F_USER_STACK))) {
                    ids.add(helperA(x));
                }
            }
            assertThat(ids.get(0)).as("interp id").isGreaterThanOrEqualTo(0);
            assertThat(ids).as("interp vs JIT").containsOnly(ids.get(0));
            assertThat(env.stacks.ips(ids.get(0).intValue())).isPresent();
            assertThat(StackTraceView.of(env.stacks).entries()).as("one trace stored for every engine").hasSize(1);

            List<Frame> frames = StackTraceView.of(env.stacks).frames(ids.get(0).intValue());
            List<String> names = frames.stream().map(Frame::toString).toList();
            assertThat(names.get(0)).startsWith(ME + ".helperB(JavaCallerStackEnginesTest.java:");
            assertThat(names.get(1)).startsWith(ME + ".helperA(JavaCallerStackEnginesTest.java:");
            assertThat(names.get(2)).startsWith(ME + ".theTraceIsTheJavaCallPathInnermostFirstAndEngineIndependent(JavaCallerStackEnginesTest.java:");
            assertThat(names).as("no engine frame").noneMatch(n -> n.startsWith("dev.bpf4j.interp.") || n.startsWith("dev.bpf4j.jit.")
                    || n.startsWith("com.kenai.jffi.") || n.startsWith("dev.bpf4j.stack.StackHelpers"));
            assertThat(frames).allMatch(Frame::known);
        }
    }

    @Test
    void aRunNestedInAHelperShowsTheHelperAndNoFrameOfEitherEngine() {
        try (Engines env = new Engines(127, 64)) {
            List<Long> ids = new ArrayList<>();
            for (Engine e : Engines.ALL) {
                try (Executable inner = env.load(e, env.getStackId(BPF_F_USER_STACK))) {
                    HelperRegistry h = env.helpers.toBuilder().add(100, "nested", (call, a, b, c, d, f) -> inner.run(PLAIN)).build();
                    try (Executable outer = e.load(Assembler.assembleProgram("outer", "call 100\nexit"), LoadOptions.defaults().withHelpers(h))) {
                        ids.add(outer.run(PLAIN));
                    }
                }
            }
            assertThat(ids.get(0)).isGreaterThanOrEqualTo(0);
            assertThat(ids).as("interp vs JIT").containsOnly(ids.get(0));
            List<String> names = StackTraceView.of(env.stacks).frames(ids.get(0).intValue()).stream().map(Frame::toString).toList();
            assertThat(names.get(0)).as(names.toString()).startsWith(ME + ".lambda$aRunNestedInAHelperShowsTheHelperAndNoFrameOfEitherEngine$");
            assertThat(names.get(1)).as(names.toString()).startsWith(ME + ".aRunNestedInAHelperShowsTheHelperAndNoFrameOfEitherEngine(");
            assertThat(names).noneMatch(n -> n.startsWith("dev.bpf4j.interp.") || n.startsWith("dev.bpf4j.jit.") || n.startsWith("com.kenai.jffi."));
        }
    }

    @Test
    void skipDropsInnermostJavaFramesAndTheMapValueSizeCapsTheDepth() {
        try (Engines deep = new Engines(127, 64); Engines shallow = new Engines(2, 64)) {
            for (Engine e : Engines.ALL) {
                long id;
                try (Executable x = deep.load(e, deep.getStackId(BPF_F_USER_STACK | 1))) {
                    id = helperA(x);
                }
                assertThat(StackTraceView.of(deep.stacks).frames((int) id).get(0).toString()).as(e.toString())
                        .startsWith(ME + ".helperA(");
                try (Executable x = shallow.load(e, shallow.getStackId(BPF_F_USER_STACK))) {
                    id = helperA(x);
                }
                List<Frame> two = StackTraceView.of(shallow.stacks).frames((int) id);
                assertThat(two).as(e.toString()).hasSize(2);
                assertThat(two.get(1).toString()).startsWith(ME + ".helperA(");
            }
        }
    }

    @Test
    void kernelStackWithoutRegistersIsEmptyAndFlagErrorsAreTheKernels() {
        try (Engines env = new Engines(16, 8)) {
            for (Engine e : Engines.ALL) {
                assertThat(env.run(e, env.getStackId(0), PLAIN)).as(e + ": no kernel stack").isEqualTo(-Errno.EFAULT);
                assertThat(env.run(e, env.getStackId(BPF_F_USER_STACK | 255), PLAIN)).as(e + ": skip past the end").isEqualTo(-Errno.EFAULT);
                assertThat(env.run(e, env.getStackId(BPF_F_USER_BUILD_ID), PLAIN)).as(e + ": unknown flag").isEqualTo(-Errno.EINVAL);
                assertThat(env.stacks.buckets()).isEqualTo(8);
            }
            assertThat(StackTraceView.of(env.stacks).entries()).isEmpty();
        }
    }

    @Test
    void getStackCopiesTheJavaPathAndZeroFillsTheRest() {
        long buf = NativeMemory.allocate(4096);
        try (Engines env = new Engines(16, 8)) {
            RunContext ctx = RunContext.builder().arg(1, buf).region(new MemoryRegion("buf", buf, 4096, true)).build();
            List<long[]> seen = new ArrayList<>();
            for (Engine e : Engines.ALL) {
                NativeMemory.setMemory(buf, 4096, (byte) 0x5a);
                long n;
                try (Executable x = env.load(e, Engines.getStack(4096, BPF_F_USER_STACK))) {
                    n = x.run(ctx);
                }
                assertThat(n).as(e.toString()).isPositive().isEqualTo(n / 8 * 8);
                long[] ips = new long[512];
                for (int i = 0; i < ips.length; i++) ips[i] = NativeMemory.getLong(buf + 8L * i);
                for (int i = (int) (n / 8); i < ips.length; i++) assertThat(ips[i]).as("zero fill at %d", i).isZero();
                seen.add(java.util.Arrays.copyOf(ips, (int) (n / 8)));
                // the kernel stack does not exist without registers: 0 bytes, all zero
                NativeMemory.setMemory(buf, 64, (byte) 0x5a);
                try (Executable x = env.load(e, Engines.getStack(64, 0))) {
                    assertThat(x.run(ctx)).isZero();
                }
                assertThat(NativeMemory.getLong(buf)).isZero();
                // size not a multiple of 8: -EINVAL, buffer cleared
                NativeMemory.setMemory(buf, 64, (byte) 0x5a);
                try (Executable x = env.load(e, Engines.getStack(60, BPF_F_USER_STACK))) {
                    assertThat(x.run(ctx)).isEqualTo(-Errno.EINVAL);
                }
                assertThat(NativeMemory.getLong(buf + 48) & 0xffffffffL).isZero();
                assertThat(NativeMemory.getByte(buf + 60)).isEqualTo((byte) 0x5a);
            }
            // The frame that called run differs by nothing but... it is the same line for every engine.
            assertThat(seen.get(1)).as("JIT vs interp").containsExactly(seen.get(0));
            assertThat(StackTraceView.of(env.stacks).entries()).isEmpty();
        } finally {
            NativeMemory.free(buf);
        }
    }
}
