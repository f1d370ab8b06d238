package dev.bpf4j.it;

import dev.bpf4j.api.Engines;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf_get_current_task_btf, bpf_find_vma and bpf_copy_from_user_task in hand-written programs on every engine
 * (interpreter, JIT, jvm), which must agree on r0 or the error and on every byte of the block the program
 * writes; the interpreter's answers are checked against /proc/self/maps. helpers_vma.c (VmaCases) compares
 * the same helpers with Linux.
 */
class VmaHelpersTest {
    static final int BLOCK = 112;
    static final long ENOENT = -2, EFAULT = -14, EINVAL = -22;
    /** 8 bytes of user memory 0x01..0x08. */
    static final long USER = NativeMemory.allocate(8);

    static {
        for (int i = 0; i < 8; i++) NativeMemory.putByte(USER + i, (byte) (i + 1));
    }

    @AfterAll static void free() { NativeMemory.free(USER); }

    /**
     * Block: [0] addr, [8] find_vma flags, [16] its result, [24] vm_start, [32] vm_end, [40] vm_pgoff, [48] vm_flags,
     * [56] vm_file != NULL, [64] callback calls, [72] copy_from_user_task's result, [80] dst (0x5a before),
     * [88] its flags, [96] user_ptr, [104] size (& 8). The callback returns vm_flags & VM_READ.
     */
    static final String FIND = """
            mov %r6, %r1
            stdw [%r10-8], 0
            stdw [%r10-16], 0
            stdw [%r10-24], 0
            stdw [%r10-32], 0
            stdw [%r10-40], 0
            stdw [%r10-48], 0
            call 158
            mov %r7, %r0
            mov %r1, %r7
            ldxdw %r2, [%r6+0]
            lddw %r3, code_addr(32)
            mov %r4, %r10
            add %r4, -48
            ldxdw %r5, [%r6+8]
            call 180
            stxdw [%r6+16], %r0
            ldxdw %r1, [%r10-8]
            stxdw [%r6+24], %r1
            ldxdw %r1, [%r10-16]
            stxdw [%r6+32], %r1
            ldxdw %r1, [%r10-24]
            stxdw [%r6+40], %r1
            ldxdw %r1, [%r10-32]
            stxdw [%r6+48], %r1
            ldxdw %r1, [%r10-40]
            stxdw [%r6+56], %r1
            ldxdw %r1, [%r10-48]
            stxdw [%r6+64], %r1
            stdw [%r10-56], 0x5a
            mov %r1, %r10
            add %r1, -56
            ldxdw %r2, [%r6+104]
            and %r2, 8
            ldxdw %r3, [%r6+96]
            mov %r4, %r7
            ldxdw %r5, [%r6+88]
            call 191
            stxdw [%r6+72], %r0
            ldxdw %r1, [%r10-56]
            stxdw [%r6+80], %r1
            mov %r0, 0
            exit
            ldxdw %r4, [%r2+0]
            stxdw [%r3+40], %r4
            ldxdw %r4, [%r2+8]
            stxdw [%r3+32], %r4
            ldxdw %r4, [%r2+80]
            stxdw [%r3+24], %r4
            ldxdw %r4, [%r2+32]
            stxdw [%r3+16], %r4
            ldxdw %r4, [%r2+88]
            mov %r5, 1
            jne %r4, 0, +1
            mov %r5, 0
            stxdw [%r3+8], %r5
            ldxdw %r4, [%r3+0]
            add %r4, 1
            stxdw [%r3+0], %r4
            ldxdw %r0, [%r2+32]
            and %r0, 1
            exit
            """;

    static final LoadOptions OPTIONS = LoadOptions.defaults().withEntry(EntryRegisters.CONTEXT)
            .withHelpers(BpfHelpers.registry(MapTable.create(List.of())));

    static List<Engine> engines() { return Engines.available().stream().filter(e -> !e.name().equals("kernel")).toList(); }

    /** r0 or the error, then the block, after one run of {@code asm} on {@code engine} with the block's first bytes {@code in}. */
    static String run(Engine engine, String asm, long... in) {
        long block = NativeMemory.allocate(BLOCK);
        try {
            NativeMemory.setMemory(block, BLOCK, (byte) 0);
            for (int i = 0; i < in.length; i++) NativeMemory.putLong(block + 8L * i, in[i]);
            NativeMemory.putLong(block + 96, in.length > 12 ? in[12] : USER);
            NativeMemory.putLong(block + 104, in.length > 13 ? in[13] : 8);
            Program p = Assembler.assembleProgram("vma", asm);
            StringBuilder s = new StringBuilder();
            try (Executable x = Bpf.load(p, engine, OPTIONS)) {
                long r0 = x.run(RunContext.builder().arg(1, block).region(new MemoryRegion("block", block, BLOCK, true)).build());
                s.append("r0=").append(r0);
            } catch (BpfRuntimeException e) {
                s.append(e.kind()).append('@').append(e.pc());
            }
            return s.append(" block=").append(HexFormat.of().formatHex(NativeMemory.read(block, BLOCK))).toString();
        } finally {
            NativeMemory.free(block);
        }
    }

    /** Every engine's answer equals the interpreter's, which is returned. */
    static String agree(String asm, long... in) {
        String want = run(Engines.byName("interp"), asm, in);
        for (Engine e : engines()) assertThat(run(e, asm, in)).as("%s against interp", e.name()).isEqualTo(want);
        return want;
    }

    static ByteBuffer block(String outcome) {
        return ByteBuffer.wrap(HexFormat.of().parseHex(outcome.substring(outcome.indexOf("block=") + 6))).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** start, end, offset of libjvm.so's r-xp mapping. */
    static long[] libjvmText() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 6 && f[1].equals("r-xp") && f[5].endsWith("/libjvm.so")) {
                String[] r = f[0].split("-");
                return new long[] {Long.parseUnsignedLong(r[0], 16), Long.parseUnsignedLong(r[1], 16), Long.parseUnsignedLong(f[2], 16)};
            }
        }
        throw new IllegalStateException("no libjvm.so text in /proc/self/maps");
    }

    @Test
    void findVmaDescribesTheMappingAndCopyFromUserTaskCopies() throws IOException {
        long[] text = libjvmText();
        for (long addr : new long[] {text[0], text[0] + 4097, text[1] - 1}) {
            ByteBuffer b = block(agree(FIND, addr, 0));
            assertThat(b.getLong(16)).as("find_vma").isZero();
            assertThat(b.getLong(24)).as("vm_start").isEqualTo(text[0]);
            assertThat(b.getLong(32)).as("vm_end").isEqualTo(text[1]);
            assertThat(b.getLong(40)).as("vm_pgoff").isEqualTo(text[2] >>> 12);
            assertThat(b.getLong(48) & 0xff).as("vm_flags: rd ex mr mw me").isEqualTo(0x75);
            assertThat(b.getLong(56)).as("vm_file").isEqualTo(1);
            assertThat(b.getLong(64)).as("one callback call").isEqualTo(1);
            assertThat(b.getLong(72)).as("copy_from_user_task").isZero();
            assertThat(b.getLong(80)).isEqualTo(0x0807060504030201L);
        }
    }

    @Test
    void noMappingIsEnoentAndBadFlagsEinval() {
        for (long addr : new long[] {0, 0x1000, 0xffffffffff600000L /* [vsyscall]: no vma */, -1}) {
            ByteBuffer b = block(agree(FIND, addr, 0));
            assertThat(b.getLong(16)).as("0x%x", addr).isEqualTo(ENOENT);
            assertThat(b.getLong(64)).as("no callback call").isZero();
            assertThat(b.getLong(24)).isZero();
        }
        for (long flags : new long[] {1, 1L << 63}) {
            ByteBuffer b = block(agree(FIND, USER, flags));
            assertThat(b.getLong(16)).isEqualTo(EINVAL);
            assertThat(b.getLong(64)).isZero();
        }
    }

    @Test
    void anAnonymousMappingHasNoFile() {
        // the buffer's mapping may grow between runs (malloc): only the result, flags and file are compared
        for (Engine e : engines()) {
            ByteBuffer b = block(run(e, FIND, USER, 0));
            assertThat(b.getLong(16)).as(e.name()).isZero();
            assertThat(b.getLong(24)).as(e.name()).isLessThanOrEqualTo(USER);
            assertThat(b.getLong(32)).as(e.name()).isGreaterThan(USER);
            assertThat(b.getLong(48) & 0xf).as("%s: rd wr", e.name()).isEqualTo(3);
            assertThat(b.getLong(56)).as(e.name()).isZero();
        }
    }

    @Test
    void copyFromUserTaskFlagsFaultsAndZeroSize() throws IOException {
        long addr = libjvmText()[0];
        ByteBuffer flags = block(agree(FIND, addr, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 /* flags at 88 */));
        assertThat(flags.getLong(72)).isEqualTo(EINVAL);
        assertThat(flags.getLong(80)).as("dst untouched").isEqualTo(0x5a);
        ByteBuffer none = block(agree(FIND, addr, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 /* NULL user_ptr */));
        assertThat(none.getLong(72)).isEqualTo(EFAULT);
        assertThat(none.getLong(80)).as("dst zeroed").isZero();
        ByteBuffer zero = block(agree(FIND, addr, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, USER, 0 /* size 0 */));
        assertThat(zero.getLong(72)).isZero();
        assertThat(zero.getLong(80)).isEqualTo(0x5a);
    }

    @Test
    void aCallbackReturningZeroOrOneEndsTheSameWay() throws IOException {
        // FIND's callback returns 1 (vm_flags & VM_READ for libjvm's text); this one 0: find_vma ignores either
        String ret0 = FIND.replace("ldxdw %r0, [%r2+32]\nand %r0, 1\nexit", "mov %r0, 0\nmov %r0, 0\nexit");
        assertThat(ret0).isNotEqualTo(FIND);
        ByteBuffer b = block(agree(ret0, libjvmText()[0], 0));
        assertThat(b.getLong(16)).isZero();
        assertThat(b.getLong(64)).isEqualTo(1);
    }

    @Test
    void onlyTheCurrentTaskIsATask() {
        // a plain number as the task: the verifier leaves it to the helper; NULL is -ENOENT, anything else an error
        String asm = "mov %r6, %r1\nldxdw %r1, [%r6+0]\nmov %r2, 0x1000\nlddw %r3, code_addr(7)\nmov %r4, 0\nmov %r5, 0\n"
                + "call 180\nstxdw [%r6+16], %r0\nmov %r0, 0\nexit\nmov %r0, 0\nexit";
        assertThat(block(agree(asm, 0)).getLong(16)).isEqualTo(ENOENT);
        assertThat(agree(asm, 12345)).startsWith("BAD_HELPER_ARGUMENT@7 ");
        String copy = "mov %r1, %r10\nadd %r1, -8\nmov %r2, 8\nmov %r3, 0\nmov %r4, 99\nmov %r5, 0\ncall 191\nexit";
        assertThat(agree(copy)).startsWith("BAD_HELPER_ARGUMENT@6 ");
    }
}
