package dev.bpf4j.jit;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.isa.Reg.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * callx ({@code call %rN}, opcode 0x8d): the helper whose id is in rN, on the interpreter and the JIT, validated as
 * {@link Bpf#load} does; each case compares r0 or the error (kind, pc, message) and the memory block after the run.
 */
class CallxDifferentialTest {
    static final int OUT = 64;
    static final int RECORD = 200, FRAME_COPY = 201;

    /**
     * 200: out[0..40) = r1..r5, r0 = r1 + 2 r2; 201 (forward): copies 64 bytes from r1 to out. Programs set every
     * argument register they pass (what an unset one holds differs between the engines until the verifier rejects
     * reading it: issue 21, reproducer 3).
     */
    static HelperRegistry helpers(long out) {
        return HelperRegistry.builder()
                .add(5, "unwind", (call, a, b, c, d, e) -> {
                    if (a == 0) call.exit(0);
                    return a;
                })
                .add(RECORD, "record", (call, a, b, c, d, e) -> {
                    long[] args = {a, b, c, d, e};
                    for (int i = 0; i < 5; i++) NativeMemory.putLong(out + 8L * i, args[i]);
                    return a + 2 * b;
                })
                .addForward(FRAME_COPY, "frame_copy", (call, a, b, c, d, e) -> {
                    NativeMemory.copy(a, out, OUT);
                    return 0;
                })
                .build();
    }

    static String outcome(Engine engine, Program p) {
        long out = NativeMemory.allocate(OUT);
        try {
            NativeMemory.setMemory(out, OUT, (byte) 0x5a);
            LoadOptions o = LoadOptions.defaults().withHelpers(helpers(out));
            StringBuilder s = new StringBuilder();
            try (Executable x = Bpf.load(p, engine, o)) {
                long r0 = x.run(RunContext.builder().arg(1, out).region(new MemoryRegion("out", out, OUT, true)).build());
                s.append("r0=").append(Long.toHexString(r0));
            } catch (BpfRuntimeException e) {
                s.append(e.kind()).append('@').append(e.pc()).append(": ").append(e.getMessage());
            }
            s.append(" out=");
            for (byte b : NativeMemory.read(out, OUT)) s.append(String.format("%02x", b & 0xff));
            return s.toString();
        } finally {
            NativeMemory.free(out);
        }
    }

    /** The outcome both engines agree on. */
    static String agree(Program p) {
        String interp = outcome(Both.INTERP, p);
        assertThat(outcome(Jit.ENGINE, p)).as(p.name()).isEqualTo(interp);
        return interp;
    }

    static Program asm(String name, String text) { return Assembler.assembleProgram(name, text); }

    @Test void callsTheHelperWhoseIdIsInTheRegister() {
        String r = agree(asm("record", """
                mov %r6, 200
                mov %r1, 11
                mov %r2, 22
                mov %r3, 33
                mov %r4, 44
                mov %r5, 55
                call %r6
                add %r0, %r6
                exit
                """));
        assertThat(r).startsWith("r0=" + Long.toHexString(11 + 44 + 200) + " out=0b00000000000000160000000000000021");
    }

    @Test void theIdMayBeAnArgumentRegister() {
        // r1 = 200 is both the id and the first argument
        assertThat(agree(asm("r1", "mov %r1, 200\nmov %r2, 1\nmov %r3, 0\nmov %r4, 0\nmov %r5, 0\ncall %r1\nexit")))
                .startsWith("r0=ca out=c800000000000000010000000000000000");
    }

    @Test void theSameCallSiteCallsDifferentHelpers() {
        // r7 = 5 (unwind) on the first pass, 200 (record) on the second: r0 = 3 + (3 + 2 * 9)
        String r = agree(asm("two", """
                mov %r7, 5
                mov %r8, 0
                mov %r9, 2
                loop:
                mov %r1, 3
                mov %r2, 9
                mov %r3, 0
                mov %r4, 0
                mov %r5, 0
                call %r7
                add %r8, %r0
                mov %r7, 200
                sub %r9, 1
                jne %r9, 0, loop
                mov %r0, %r8
                exit
                """));
        assertThat(r).startsWith("r0=" + Long.toHexString(3 + 3 + 2 * 9) + " ");
    }

    @Test void unwindWithZeroEndsTheRun() {
        assertThat(agree(asm("unwind0", "mov %r1, 0\nmov %r3, 5\ncall %r3\nmov %r0, 9\nexit"))).startsWith("r0=0 ");
    }

    @Test void anUnknownIdFailsAtTheCallxOnBothEngines() {
        assertThat(agree(asm("unknown", "mov %r1, 1\nmov %r4, 99\ncall %r4\nexit")))
                .startsWith("HELPER_FAILED@2: program 'unknown' pc 2: helper failed: callx: r4 = 99 (0x63) is not the id of a registered helper");
        // the whole register is the id: 2^32 + 200 is not helper 200
        assertThat(agree(asm("wide", "mov %r1, 1\nlddw %r4, 0x1000000c8\ncall %r4\nexit")))
                .startsWith("HELPER_FAILED@3: ").contains("r4 = 4294967496 (0x1000000c8)");
        // and so is a negative one
        assertThat(agree(asm("negative", "mov %r1, 1\nmov %r4, -1\ncall %r4\nexit"))).startsWith("HELPER_FAILED@2: ");
    }

    @Test void aLoadWithoutAnyHelperFailsEveryCallx() {
        Program p = asm("none", "mov %r1, 1\nmov %r2, 5\ncall %r2\nexit");
        String interp = null;
        for (Engine engine : List.of(Both.INTERP, Jit.ENGINE)) {
            String got;
            try (Executable x = Bpf.load(p, engine, LoadOptions.defaults())) {
                got = "r0=" + x.run(RunContext.builder().build());
            } catch (BpfRuntimeException e) {
                got = e.kind() + "@" + e.pc() + ": " + e.getMessage();
            }
            if (interp == null) interp = got;
            else assertThat(got).isEqualTo(interp);
        }
        assertThat(interp).isEqualTo("HELPER_FAILED@2: program 'none' pc 2: helper failed: callx: r2 = 5 (0x5) is not the id of a registered helper");
    }

    @Test void insideASubprogramTheErrorNamesTheSubprogramsPc() {
        assertThat(agree(asm("sub", "call local f\nexit\nf:\nmov %r1, 1\nmov %r2, 7\ncall %r2\nexit")))
                .startsWith("HELPER_FAILED@4: ");
        assertThat(agree(asm("subok", "call local f\nadd %r0, 1\nexit\nf:\nmov %r1, 40\nmov %r2, 5\ncall %r2\nexit")))
                .startsWith("r0=29 ");
    }

    /**
     * A frame pointer passed to callx: which helper runs is not known when the program loads, so both engines
     * zero the whole frame, even for a helper registered as forward; the copied bytes are the same.
     */
    @Test void aFramePointerPassedToCallxSeesAZeroedFrame() {
        Program p = asm("frame", """
                stdw [%r10-8], 0x1234
                mov %r1, %r10
                add %r1, -64
                mov %r6, 201
                call %r6
                mov %r0, 0
                exit
                """);
        // run a program first that leaves garbage in the native frames
        agree(asm("dirty", "stdw [%r10-64], -1\nstdw [%r10-56], -1\nstdw [%r10-24], -1\nmov %r0, 0\nexit"));
        String r = agree(p);
        assertThat(r).endsWith(" out=" + "00".repeat(56) + "3412000000000000");
    }

    @Test void callxOfBpfTailCallJumpsAsACallWould() {
        TailCallTest t = new TailCallTest();
        String r = t.agree(CallxDifferentialTest::tailCaller, 0, List.of(TailCallTest::stackReader));
        assertThat(r).startsWith("r0=77 ").contains("3412000000000000");
        assertThat(t.agree(CallxDifferentialTest::tailCaller, 3, List.of(TailCallTest::stackReader))).startsWith("r0=fa11 ");
    }

    /** {@link TailCallTest#caller} with bpf_tail_call made through callx (its id in r4). */
    static Program tailCaller(long jmp) {
        return new ProgramBuilder()
                .mov64(R6, R1)
                .ldxdw(R2, R6, 0).add64(R2, 1).stxdw(R6, 0, R2)
                .st(dev.bpf4j.isa.Opcodes.DW, R10, -8, 0x1234)
                .lddw(R2, jmp).ldxdw(R3, R6, 8).mov64(R1, R6).mov64(R4, HelperIds.TAIL_CALL)
                .callx(R4)
                .mov64(R0, 0xfa11).exit().build("caller");
    }
}
