package dev.bpf4j.it.corpus;

import dev.bpf4j.api.RunOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Corpus cases of helpers_vma.c: the syscall program vma_find takes the current task from
 * bpf_get_current_task_btf, looks up addresses with bpf_find_vma (the text of libjvm.so, a native
 * buffer, no mapping; bad flags; a NULL callback_ctx) and copies user memory with bpf_copy_from_user_task.
 * The thread that runs it is the kernel's current when KernelCorpusTest runs it in Linux, so both look
 * in this JVM's mappings: ctx_out is compared byte for byte. Only mappings that do not move while the
 * test runs are described field by field (a file's text); of the malloc'ed buffer only flags and file.
 */
final class VmaCases {
    private VmaCases() {}

    static final int ARGS = 200;
    static final long ENOENT = -2, EFAULT = -14, EINVAL = -22;
    /** The vsyscall page: in /proc/self/maps, but the gate area is no vma of the mm. */
    static final long VSYSCALL = 0xffffffffff600000L;

    static List<CorpusCase> all() {
        String[] text = libjvmText();
        long start = Long.parseUnsignedLong(text[0], 16), end = Long.parseUnsignedLong(text[1], 16);
        long pgoff = Long.parseUnsignedLong(text[2], 16) >>> 12;
        long addr = start + (end - start) / 2;
        List<RunOptions> runs = List.of(
                args(addr, TaskCases.USER, 0x1000, TaskCases.USER, 15, 0),
                args(start, TaskCases.USER + 8, VSYSCALL, TaskCases.USER, 0, 1),
                args(end - 1, TaskCases.USER, 0, 0, 8, 1));
        return List.of(new CorpusCase("helpers_vma", "vma_find", runs, o -> {
            for (int run = 0; run < 3; run++) {
                ByteBuffer out = ctxOut(o, run);
                assertThat(out.getLong(40)).as("run %d find_vma in libjvm's text", run).isZero();
                assertThat(out.getLong(48)).as("vm_start").isEqualTo(start);
                assertThat(out.getLong(56)).as("vm_end").isEqualTo(end);
                assertThat(out.getLong(64) & 0xf).as("vm_flags: VM_READ | VM_EXEC").isEqualTo(5);
                assertThat(out.getLong(72)).as("vm_pgoff").isEqualTo(pgoff);
                assertThat(out.getLong(80)).as("vm_file is set").isEqualTo(1);
                assertThat(out.getLong(88)).as("callback calls").isEqualTo(2);
                assertThat(out.getLong(96)).as("find_vma in a native buffer").isZero();
                assertThat(out.getLong(104) & 3).as("VM_READ | VM_WRITE").isEqualTo(3);
                assertThat(out.getLong(112)).as("anonymous: no vm_file").isZero();
                assertThat(out.getLong(120)).as("no mapping").isEqualTo(ENOENT);
                assertThat(out.getLong(128)).as("flags 1").isEqualTo(EINVAL);
                assertThat(out.getLong(136)).as("NULL callback_ctx").isZero();
                assertThat(out.getLong(168)).as("copy_from_user_task flags 1").isEqualTo(EINVAL);
                assertThat(HexFormat.of().formatHex(out.array(), 176, 184)).as("dst untouched").isEqualTo("0102030405060708");
                assertThat(out.getLong(184)).as("the ctx is kernel memory").isEqualTo(EFAULT);
                assertThat(out.getLong(192)).as("zeroed").isZero();
            }
            assertThat(ctxOut(o, 0).getLong(144)).isZero();
            assertThat(HexFormat.of().formatHex(ctxOut(o, 0).array(), 152, 168)).isEqualTo("101112131415161718191a1b1c1d1e00");
            assertThat(ctxOut(o, 1).getLong(144)).as("size 0").isZero();
            assertThat(ctxOut(o, 2).getLong(144)).as("a NULL user pointer").isEqualTo(EFAULT);
        }, null));
    }

    static RunOptions args(long addr, long anon, long none, long user, int copyLen, int stop) {
        return RunOptions.defaults().withCtxIn(ByteBuffer.allocate(ARGS).order(ByteOrder.LITTLE_ENDIAN).putLong(addr).putLong(anon)
                .putLong(none).putLong(user).putInt(copyLen).putInt(stop).array());
    }

    private static ByteBuffer ctxOut(Outcome o, int run) {
        String r = o.runs().get(run);
        return ByteBuffer.wrap(HexFormat.of().parseHex(r.substring(r.indexOf("ctx_out=") + 8))).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** start, end and offset (hex) of libjvm.so's executable mapping in /proc/self/maps. */
    static String[] libjvmText() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
                String[] f = line.trim().split("\\s+");
                if (f.length >= 6 && f[1].equals("r-xp") && f[5].endsWith("/libjvm.so")) {
                    String[] range = f[0].split("-");
                    return new String[] {range[0], range[1], f[2]};
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("no r-xp mapping of libjvm.so in /proc/self/maps");
    }
}
