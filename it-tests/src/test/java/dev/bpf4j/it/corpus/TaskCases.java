package dev.bpf4j.it.corpus;

import dev.bpf4j.api.RunOptions;
import dev.bpf4j.runtime.NativeMemory;

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
 * Corpus cases of helpers_task.c: the syscall program task_ids reads uid/gid, pid/tgid, its pid namespace,
 * cgroup v2 ids and user memory (bpf_copy_from_user) of the thread that runs it, which is also the kernel's
 * current when KernelCorpusTest runs it in Linux (ctx_out compared byte for byte); tc_cgroup reads the
 * skb's cgroup ids. The user memory is a native buffer of this JVM, at the same address for both.
 */
final class TaskCases {
    private TaskCases() {}

    static final int ARGS = 168;
    static final long EFAULT = -14, EINVAL = -22;
    /** 16 bytes of user memory: 0x10, 0x11, ... 0x1f (never freed: cases are built once per JVM). */
    static final long USER = userMemory();

    static List<CorpusCase> all() {
        long[] ns = pidNamespace();
        List<RunOptions> runs = List.of(
                args(ns[0], ns[1], USER, 15, 2),                       // 0: the thread's own namespace; 15 bytes of user memory
                args(ns[0], ns[1] + 1, 0, 8, Integer.MAX_VALUE),       // 1: another namespace inode; a NULL user pointer
                args(ns[0] | 1L << 32, ns[1], 0xffffffff81000000L, 9, 100)); // 2: dev past dev_t; a kernel address
        return List.of(new CorpusCase("helpers_task", "task_ids", runs, o -> {
            for (int run = 0; run < 3; run++) {
                ByteBuffer out = ctxOut(o, run);
                assertThat(out.getLong(56)).as("ancestor at level 0: the root cgroup").isEqualTo(1);
                assertThat(out.getLong(80)).as("run %d ns_ret", run).isEqualTo(run == 0 ? 0 : EINVAL);
                assertThat(out.getLong(96)).as("a bpf_pidns_info of 4 bytes: -EINVAL, zeroed").isEqualTo(EINVAL << 8);
                assertThat(out.getLong(128)).as("the ctx is kernel memory").isEqualTo(EFAULT);
                assertThat(out.getLong(136)).isZero();
            }
            ByteBuffer ok = ctxOut(o, 0);
            // "task_ids 2 15 f <ino> j": the formatted length; data_len 12 (not a multiple of 8) and a format without NUL: -EINVAL
            assertThat(ok.getLong(144)).isEqualTo(("task_ids 2 15 f " + ok.getLong(8) + " j").length());
            assertThat(ok.getLong(152)).isEqualTo(EINVAL);
            assertThat(ok.getLong(160)).isEqualTo(EINVAL);
            assertThat(ok.getInt(88)).as("pid in its namespace is the tid").isEqualTo((int) ok.getLong(40));
            assertThat(ok.getInt(92)).as("tgid").isEqualTo((int) (ok.getLong(40) >>> 32));
            assertThat(ok.getLong(104)).isZero();
            assertThat(HexFormat.of().formatHex(ok.array(), 112, 128)).isEqualTo("101112131415161718191a1b1c1d1e00");
            assertThat(ctxOut(o, 1).getLong(104)).isEqualTo(EFAULT);
            assertThat(ctxOut(o, 2).getLong(104)).isEqualTo(EFAULT);
            assertThat(ctxOut(o, 2).getLong(72)).as("no ancestor 100 levels down").isZero();
            assertThat(ctxOut(o, 1).getLong(72)).as("nor 2^31 - 1 levels down").isZero();
        }, null), new CorpusCase("helpers_task", "tc_cgroup", List.of(RunOptions.packet(Packets.udp(53, 10))), o ->
                assertThat(o.entry("task_res", "00000000")).isNotEqualTo("0000000000000000"), null));
    }

    static RunOptions args(long dev, long ino, long user, int copyLen, int level) {
        return RunOptions.defaults().withCtxIn(ByteBuffer.allocate(ARGS).order(ByteOrder.LITTLE_ENDIAN).putLong(dev).putLong(ino)
                .putLong(user).putInt(copyLen).putInt(level).array());
    }

    private static ByteBuffer ctxOut(Outcome o, int run) {
        String r = o.runs().get(run);
        return ByteBuffer.wrap(HexFormat.of().parseHex(r.substring(r.indexOf("ctx_out=") + 8))).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** st_dev and st_ino of /proc/thread-self/ns/pid, as a program would get them from stat(2). */
    static long[] pidNamespace() {
        try {
            Path p = Path.of("/proc/thread-self/ns/pid");
            return new long[] {((Number) Files.getAttribute(p, "unix:dev")).longValue(), ((Number) Files.getAttribute(p, "unix:ino")).longValue()};
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long userMemory() {
        long a = NativeMemory.allocate(16);
        for (int i = 0; i < 16; i++) NativeMemory.putByte(a + i, (byte) (0x10 + i));
        return a;
    }
}
