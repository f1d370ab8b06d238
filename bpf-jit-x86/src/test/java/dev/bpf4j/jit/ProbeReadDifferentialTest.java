package dev.bpf4j.jit;

import dev.bpf4j.engine.Bpf;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.helpers.ProbeMemory;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.runtime.HelperIds.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * {@code bpf_probe_read}, {@code _user} and {@code _kernel} on the interpreter, on the JIT with their native
 * form ({@code ProbeReadEmitter}, called where dst lies in the frame: sources in the frame or a region copied
 * directly, others through process_vm_readv) and on the JIT with the Java bodies
 * forced ({@code -Dbpf4j.jit.nativeHelpers=false}): the same r0, the same frame bytes after the call (all 512,
 * so a byte written past dst shows) and the same errors (kind and pc), over valid, partly readable (a read
 * crossing into a PROT_NONE page), PROT_NONE, unmapped, NULL, small, non-canonical and kernel-half sources,
 * sources in the frame (overlapping dst or not), sizes 0, 1, odd, 8, large and 512, r2 with bits above 32
 * set, and destinations outside the frame (a writable region, a read-only one). The Java body's calls are
 * counted: the JIT with native forms must not call it where dst is in the frame.
 */
class ProbeReadDifferentialTest {
    static final int[] IDS = {PROBE_READ, PROBE_READ_USER, PROBE_READ_KERNEL};
    static final int[] SIZES = {0, 1, 7, 8, 13, 64, 255, 512};
    static final int OUT = 512;
    /** The call's pc in {@link #program}: 64 stores, dst (2 or 2 slots), r2 (2), r3 (2). */
    static final int CALL_PC = 64 + 2 + 2 + 2;

    static GuardedPages pages;
    static long out, readOnly, hidden;

    @BeforeAll static void map() {
        pages = new GuardedPages();
        for (int i = 0; i < GuardedPages.PAGE; i++) NativeMemory.putByte(pages.readable + i, (byte) (i * 7 + 3));
        out = NativeMemory.allocate(2 * OUT);
        readOnly = NativeMemory.allocate(64);
        hidden = NativeMemory.allocate(1024); // readable, in no region: process_vm_readv on every path
        for (int i = 0; i < 1024; i++) NativeMemory.putByte(hidden + i, (byte) (i * 13 + 1));
    }

    @AfterAll static void unmap() {
        pages.close();
        NativeMemory.free(out);
        NativeMemory.free(readOnly);
        NativeMemory.free(hidden);
    }

    /** Where dst and src come from: an r10 offset (a frame address) or an absolute address. */
    record Operand(boolean frame, long value) {
        static Operand frame(int below) { return new Operand(true, below); }
        static Operand at(long address) { return new Operand(false, address); }
        Insn[] load(int reg) {
            if (!frame) return I.lddw(reg, value);
            return new Insn[] {I.mov64r(reg, 10), I.alu64(ADD, reg, (int) -value)};
        }
        @Override public String toString() { return frame ? "r10-" + value : "0x" + Long.toHexString(value); }
    }

    /**
     * Fills the frame with 0x5a5a5a5a words, calls helper {@code id}(dst, r2, src), copies the frame to
     * {@code out} and returns the helper's r0.
     */
    static Program program(int id, Operand dst, long r2, Operand src) {
        List<Object> parts = new ArrayList<>();
        for (int k = 0; k < 64; k++) parts.add(I.st(DW, 10, -512 + 8 * k, 0x5a5a5a5a));
        parts.add(dst.load(1));
        parts.add(I.lddw(2, r2));
        parts.add(src.load(3));
        parts.add(I.call(id));
        parts.add(I.mov64r(6, 0));
        parts.add(I.lddw(7, out));
        for (int k = 0; k < 64; k++) {
            parts.add(I.ldx(DW, 8, 10, -512 + 8 * k));
            parts.add(I.stx(DW, 7, 8, 8 * k));
        }
        parts.add(I.mov64r(0, 6));
        parts.add(I.exit());
        return I.prog("probe_read", parts.toArray());
    }

    /** The standard registry with helper {@code id}'s body counting its calls, its native form kept. */
    static HelperRegistry counting(int id, AtomicInteger calls) {
        HelperRegistry standard = BpfHelpers.registry(MapTable.create(List.of()));
        HelperSpec real = standard.lookup(id).orElseThrow();
        var b = standard.toBuilder();
        dev.bpf4j.runtime.Helper body = (c, r1, r2, r3, r4, r5) -> {
            calls.incrementAndGet();
            return real.body().call(c, r1, r2, r3, r4, r5);
        };
        if (real.nativeForm() != null) b.addNative(id, real.name(), body, real.nativeForm());
        else b.add(id, real.name(), body);
        return b.build();
    }

    enum Way { INTERP, JIT_NATIVE, JIT_JAVA }

    /** r0 or kind@pc, the frame bytes (or the region's), and how often the Java body ran. */
    static String outcome(Way way, Program p, boolean verified) {
        AtomicInteger calls = new AtomicInteger();
        int id = p.insns().stream().filter(i -> i.opcode() == (JMP | CALL)).findFirst().orElseThrow().imm();
        LoadOptions o = LoadOptions.defaults().withHelpers(counting(id, calls));
        RunContext ctx = RunContext.builder()
                .region(new MemoryRegion("out", out, 2 * OUT, true))
                .region(new MemoryRegion("readable", pages.readable, GuardedPages.PAGE, false))
                .region(new MemoryRegion("ro", readOnly, 64, false)).build();
        NativeMemory.setMemory(out, 2 * OUT, (byte) 0xee);
        Engine engine = way == Way.INTERP ? Both.INTERP : Jit.ENGINE;
        StringBuilder s = new StringBuilder();
        if (way == Way.JIT_JAVA) System.setProperty("bpf4j.jit.nativeHelpers", "false");
        try (Executable x = verified ? Bpf.load(p, engine, o) : engine.load(p, o)) {
            System.clearProperty("bpf4j.jit.nativeHelpers");
            long r0 = x.run(ctx);
            s.append("r0=").append(r0);
        } catch (BpfRuntimeException e) {
            s.append(e.kind()).append('@').append(e.pc());
        } finally {
            System.clearProperty("bpf4j.jit.nativeHelpers");
        }
        s.append(" mem=");
        for (byte v : NativeMemory.read(out, 2 * OUT)) s.append(String.format("%02x", v & 0xff));
        return s + " javaCalls=" + calls.get();
    }

    /** The three outcomes agree (Java body calls aside); returns the JIT-native run's body calls. */
    static int agree(Program p, boolean verified, String what) {
        String interp = outcome(Way.INTERP, p, verified);
        String nat = outcome(Way.JIT_NATIVE, p, verified);
        String java = outcome(Way.JIT_JAVA, p, verified);
        String strip = " javaCalls=\\d+$";
        assertThat(nat.replaceAll(strip, "")).as("JIT native vs interpreter: %s", what).isEqualTo(interp.replaceAll(strip, ""));
        assertThat(java.replaceAll(strip, "")).as("JIT Java helpers vs interpreter: %s", what).isEqualTo(interp.replaceAll(strip, ""));
        assertThat(java).as("JIT Java helpers call the body: %s", what).endsWith("javaCalls=1");
        return Integer.parseInt(nat.substring(nat.lastIndexOf('=') + 1));
    }

    static List<Long> sources() {
        return List.of(hidden + 3, pages.readable + 100, pages.readable + GuardedPages.PAGE - 5, pages.readable + GuardedPages.PAGE - 512,
                pages.protNone, pages.protNone + 3, pages.unmapped, 0L, 8L, 0xfff0L, 0x10000L,
                0xffff800000000000L, 0x0000800000000000L, 0xffffffff81000000L, -4096L, -1L);
    }

    @BeforeAll static void nativeFormPresent() {
        HelperSpec s = BpfHelpers.registry(MapTable.create(List.of())).lookup(PROBE_READ).orElseThrow();
        assumeThat(s.nativeForm()).as("process_vm_readv in libc").isNotNull();
    }

    @Test void frameDestinationsReadNativelyWithTheJavaBodysResults() {
        for (int id : IDS) {
            for (int size : SIZES) {
                for (long src : sources()) {
                    String what = String.format("helper %d size %d src 0x%x", id, size, src);
                    int bodyCalls = agree(program(id, Operand.frame(512), size, Operand.at(src)), false, what);
                    assertThat(bodyCalls).as("JIT native calls no Java body: %s", what).isZero();
                }
            }
        }
    }

    @Test void sizeIsTheLow32BitsOfR2() {
        for (int id : IDS) {
            long r2 = (1L << 32) | 24;
            assertThat(agree(program(id, Operand.frame(64), r2, Operand.at(pages.readable + 8)), false, "r2 " + r2)).isZero();
            // 2^32 - 1 bytes do not fit the frame: the body checks and refuses, on every engine
            agree(program(id, Operand.frame(64), 0xffffffffL, Operand.at(pages.readable)), false, "r2 u32 max");
        }
    }

    @Test void verifiedProgramsToo() {
        for (int id : IDS) {
            for (long src : new long[] {pages.readable + 1, pages.protNone - 4, pages.unmapped, 0}) {
                Program p = verifiable(id, 40, src);
                String interp = outcome(Way.INTERP, p, true);
                assertThat(outcome(Way.JIT_NATIVE, p, true).replaceAll(" javaCalls=\\d+$", ""))
                        .isEqualTo(interp.replaceAll(" javaCalls=\\d+$", ""));
                assertThat(outcome(Way.JIT_NATIVE, p, true)).endsWith("javaCalls=0");
                assertThat(outcome(Way.JIT_JAVA, p, true)).isEqualTo(interp);
            }
        }
    }

    /** A program the verifier accepts: reads {@code size} bytes into r10-48, returns r0 * 2^32 ^ the first word read. */
    static Program verifiable(int id, int size, long src) {
        return I.prog("probe_read_verified",
                I.st(DW, 10, -48, 0x11), I.st(DW, 10, -40, 0x22), I.st(DW, 10, -32, 0x33), I.st(DW, 10, -24, 0x44),
                I.st(DW, 10, -16, 0x55), I.st(DW, 10, -8, 0x66),
                I.mov64r(1, 10), I.alu64(ADD, 1, -48), I.mov64(2, size), I.lddw(3, src), I.call(id),
                I.alu64(LSH, 0, 32), I.ldx(DW, 6, 10, -48), I.alu64r(XOR, 0, 6), I.ldx(DW, 6, 10, -8), I.alu64r(XOR, 0, 6),
                I.exit());
    }

    @Test void sourcesInTheFrame() {
        for (int id : IDS) {
            // not overlapping: native; overlapping either way: the body (its word-by-word copy in place)
            assertThat(agree(program(id, Operand.frame(256), 200, Operand.frame(512)), false, "disjoint")).isZero();
            agree(program(id, Operand.frame(256), 200, Operand.frame(300)), false, "src below dst, overlapping");
            agree(program(id, Operand.frame(300), 200, Operand.frame(256)), false, "src above dst, overlapping");
            agree(program(id, Operand.frame(300), 13, Operand.frame(300)), false, "src = dst");
            // 3 bytes apart: the body's 8-byte words give other bytes than a forward byte copy would
            agree(program(id, Operand.frame(300), 64, Operand.frame(303)), false, "src 3 bytes below dst");
            agree(program(id, Operand.frame(303), 64, Operand.frame(300)), false, "src 3 bytes above dst");
        }
    }

    @Test void destinationsOutsideTheFrameCallTheBody() {
        for (int id : IDS) {
            assertThat(agree(program(id, Operand.at(out + OUT), 32, Operand.at(pages.readable)), false, "dst in a region")).isEqualTo(1);
            assertThat(agree(program(id, Operand.at(out + OUT), 32, Operand.at(pages.protNone)), false, "dst in a region, bad src")).isEqualTo(1);
            String refused = outcome(Way.JIT_NATIVE, program(id, Operand.at(readOnly), 8, Operand.at(pages.readable)), false);
            assertThat(refused).startsWith("BAD_HELPER_ARGUMENT@" + CALL_PC);
            agree(program(id, Operand.at(readOnly), 8, Operand.at(pages.readable)), false, "read-only dst");
            agree(program(id, Operand.at(0), 8, Operand.at(pages.readable)), false, "NULL dst");
            agree(program(id, Operand.at(0), 0, Operand.at(pages.readable)), false, "NULL dst, size 0");
            // the frame's edges: the last 8 bytes (native), one byte past r10 (the body refuses)
            assertThat(agree(program(id, Operand.frame(8), 8, Operand.at(pages.readable)), false, "frame top")).isZero();
            agree(program(id, Operand.frame(8), 9, Operand.at(pages.readable)), false, "one past r10");
        }
    }
}
