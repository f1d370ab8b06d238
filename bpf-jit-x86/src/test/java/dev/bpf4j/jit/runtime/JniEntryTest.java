package dev.bpf4j.jit.runtime;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.jit.compiler.Switches;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Runs enter generated code through a JNI native method bound to a trampoline, not through jffi. */
class JniEntryTest {
    @BeforeAll
    static void onLinuxAmd64() {
        assumeTrue("amd64".equals(System.getProperty("os.arch")) && "Linux".equals(System.getProperty("os.name")),
                "the JNI binding is made on Linux x86-64 only");
    }

    /** A class with a native method of its own, bound by the tests below (JniEntry binds once, at class init). */
    static final class Adder {
        static final long NONCE = 0x5eed_0002L;
        static long handshake() { return NONCE; }
        static native long add(long a, long b);
        static native long unbound(long a, long b);
    }

    private static ExecutableMemory code(Consumer<X86Encoder> body) {
        CodeBuffer buf = new CodeBuffer();
        body.accept(new X86Encoder(buf));
        return ExecutableMemory.of(buf.toByteArray());
    }

    @Test
    void aJitRunEntersThroughTheBindingAndNotThroughJffi() {
        assumeTrue(Switches.on("bpf4j.jit.jniEntry"), "-Dbpf4j.jit.jniEntry=false: runs enter through jffi");
        assertThat(JniEntry.bound()).as("RegisterNatives on this JVM").isTrue();
        List<String> stack = new ArrayList<>();
        HelperRegistry helpers = HelperRegistry.builder().add(1000, "walk", (call, r1, r2, r3, r4, r5) -> {
            StackWalker.getInstance().forEach(f -> stack.add(f.getClassName() + "." + f.getMethodName()));
            return r1 + 1;
        }).build();
        Program p = new Program("walk", List.of(new Insn(Opcodes.JMP | Opcodes.CALL, 0, 0, 0, 1000),
                new Insn(Opcodes.JMP | Opcodes.EXIT, 0, 0, 0, 0)));
        try (JitExecutable x = new JitLoader().load(p, LoadOptions.defaults().withHelpers(helpers))) {
            assertThat(x.run(RunContext.builder().arg(1, 41).build())).isEqualTo(42);
        }
        assertThat(stack).as("the Java frames below the helper").contains(JniEntry.class.getName() + ".enter")
                .noneMatch(f -> f.startsWith("com.kenai.jffi.Foreign."));
    }

    @Test
    void callPassesBothArgumentsWithTheStackAlignedAsForACall() {
        try (ExecutableMemory sum = code(e -> { e.movRR(true, X86Reg.RAX, X86Reg.RDI); e.aluRR(AluOp.ADD, true, X86Reg.RAX, X86Reg.RSI); e.ret(); });
             ExecutableMemory rsp = code(e -> { e.movRR(true, X86Reg.RAX, X86Reg.RSP); e.aluRI(AluOp.AND, true, X86Reg.RAX, 15); e.ret(); })) {
            assertThat(JniEntry.call(sum.address(), 40, 2)).isEqualTo(42);
            assertThat(JniEntry.call(sum.address(), -1L << 40, 1L << 40)).isZero();
            assertThat(JniEntry.call(rsp.address(), 0, 0)).as("rsp mod 16 after the call pushed its return address").isEqualTo(8);
        }
    }

    @Test
    void registerNativeBindsOnlyTheCheckedClassAndAnExistingMethod() {
        // long add(JNIEnv *, jclass, long a, long b)
        ExecutableMemory add = code(e -> { e.movRR(true, X86Reg.RAX, X86Reg.RDX); e.aluRR(AluOp.ADD, true, X86Reg.RAX, X86Reg.RCX); e.ret(); });
        // never freed: once bound, the JVM may call it until the class is unloaded
        assertThat(JniUpcall.registerNative(Adder.class, Adder.NONCE + 1, "unbound", "(JJ)J", add.address())).as("another nonce").isFalse();
        assertThatThrownBy(() -> Adder.unbound(1, 2)).isInstanceOf(UnsatisfiedLinkError.class);
        assertThat(JniUpcall.registerNative(Adder.class, Adder.NONCE, "missing", "(JJ)J", add.address())).as("no such method").isFalse();
        assertThat(JniUpcall.registerNative(Adder.class, Adder.NONCE, "add", "(JJ)J", add.address())).isTrue();
        assertThat(Adder.add(40, 2)).isEqualTo(42);
    }
}
