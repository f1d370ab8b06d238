package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The helpers that take the current task as a {@code struct task_struct *} (kernel/bpf/task_iter.c,
 * kernel/trace/bpf_trace.c, kernel/bpf/helpers.c): {@code bpf_get_current_task_btf},
 * {@code bpf_find_vma} (served by the process map, {@code /proc/self/maps} and {@code smaps}) and
 * {@code bpf_copy_from_user_task}. The task is a token, {@link #TASK}: an off-heap block no program may
 * read (the verifier refuses loads through it), the same for every thread of this process, since every
 * task a program can name here has the process's mm.
 *
 * <p>The vma {@code bpf_find_vma} hands its callback is a scratch block laid out as Linux 6.18's
 * x86-64 {@code struct vm_area_struct} (192 bytes) with only the fields a process map tells:
 * {@code vm_start} (0), {@code vm_end} (8), {@code vm_flags} (32, from smaps' {@code VmFlags}, bits 0-31),
 * {@code vm_pgoff} (80: the file offset in pages; {@code vm_start >> 12} for an anonymous mapping, as
 * {@code do_mmap} sets it, 0 for {@code [vdso]}-style special mappings), {@code vm_file} (88: NULL for
 * an anonymous mapping, else a non-NULL token). The rest is zero; the verifier lets programs read only
 * these five fields.
 */
final class VmaHelpers {
    private VmaHelpers() {}

    /** sizeof(struct vm_area_struct) on Linux 6.18 x86-64. */
    static final int VMA_SIZE = 192;
    static final int VM_START = 0, VM_END = 8, VM_FLAGS = 32, VM_PGOFF = 80, VM_FILE = 88;

    /** What bpf_get_current_task_btf returns: the current task (any thread of this process). */
    static final long TASK = token(256);
    /** vm_file of a file-backed mapping: non-NULL, not readable. */
    static final long FILE = token(256);

    private static long token(int size) {
        long a = NativeMemory.allocate(size);
        NativeMemory.setMemory(a, size, (byte) 0);
        return a;
    }

    /** The smaps VmFlags mnemonics of bits 0-31 of vm_flags (fs/proc/task_mmu.c show_smap_vma_flags). */
    private static final Map<String, Integer> FLAG_BITS = Map.ofEntries(
            Map.entry("rd", 0), Map.entry("wr", 1), Map.entry("ex", 2), Map.entry("sh", 3),
            Map.entry("mr", 4), Map.entry("mw", 5), Map.entry("me", 6), Map.entry("ms", 7),
            Map.entry("gd", 8), Map.entry("um", 9), Map.entry("pf", 10), Map.entry("uw", 12),
            Map.entry("lo", 13), Map.entry("io", 14), Map.entry("sr", 15), Map.entry("rr", 16),
            Map.entry("dc", 17), Map.entry("de", 18), Map.entry("lf", 19), Map.entry("ac", 20),
            Map.entry("nr", 21), Map.entry("ht", 22), Map.entry("sf", 23), Map.entry("ar", 24),
            Map.entry("wf", 25), Map.entry("dd", 26), Map.entry("sd", 27), Map.entry("mm", 28),
            Map.entry("hg", 29), Map.entry("nh", 30), Map.entry("mg", 31));

    static void register(HelperRegistry.Builder b, ProbeMemory mem) {
        b.add(HelperIds.GET_CURRENT_TASK_BTF, "bpf_get_current_task_btf", (call, r1, r2, r3, r4, r5) -> TASK);
        b.add(HelperIds.FIND_VMA, "bpf_find_vma", VmaHelpers::findVma);
        b.add(HelperIds.COPY_FROM_USER_TASK, "bpf_copy_from_user_task", (call, r1, r2, r3, r4, r5) -> {
            long size = r2 & 0xffffffffL;
            call.checkArgument(1, "bpf_copy_from_user_task dst (r1)", r1, size, true);
            task(call, "bpf_copy_from_user_task", 4, r4, false);
            if (r5 != 0) return -Errno.EINVAL; // flags: before anything, dst untouched (as Linux)
            return ProcessHelpers.copyFromUser(call, mem, r1, size, r3);
        });
    }

    /**
     * Checks a task argument: {@link #TASK}, or NULL where {@code nullOk} (false is then returned).
     * Anything else is no task_struct (the verifier lets plain numbers through to the helper).
     */
    private static boolean task(HelperCall call, String helper, int reg, long task, boolean nullOk) {
        if (task == TASK) return true;
        if (task == 0 && nullOk) return false;
        throw call.badArgument(String.format("%s task (r%d) 0x%x is not a task_struct (bpf_get_current_task_btf gives one)",
                helper, reg, task));
    }

    /**
     * bpf_find_vma(task, addr, callback_fn, callback_ctx, flags): -EINVAL for non-zero flags, -ENOENT for a
     * NULL task or when no mapping contains addr; else callback_fn(task, vma, callback_ctx) once, whose
     * return value is ignored, and 0.
     */
    static long findVma(HelperCall call, long task, long addr, long fn, long ctx, long flags) {
        if (flags != 0) return -Errno.EINVAL;
        if (!task(call, "bpf_find_vma", 1, task, true)) return -Errno.ENOENT;
        long vma = call.scratch(VMA_SIZE);
        NativeMemory.setMemory(vma, VMA_SIZE, (byte) 0);
        try {
            if (!describe(addr, vma)) return -Errno.ENOENT;
        } catch (IOException | RuntimeException e) {
            throw new BpfRuntimeException(ErrorKind.HELPER_FAILED, call.programName(), call.pc(), 0,
                    "bpf_find_vma: cannot read /proc/self/maps or smaps: " + e.getMessage());
        }
        call.callSubprogram(fn, task, vma, ctx, 0, 0);
        return 0;
    }

    /**
     * VmFlags of the mappings smaps showed when it was last read, by their header line (the same line
     * /proc/self/maps shows). smaps costs 10-20 ms a read here (it walks every mapping's pages), maps
     * well under one: a call reads maps and reads smaps again only for a mapping it has not seen.
     * A flag changed in place (madvise, mlock) is seen once the mapping itself changes.
     */
    private static volatile Map<String, Long> smapsFlags = Map.of();

    /** Fills {@code vma} with the mapping of this process that contains {@code addr}; false when none does. */
    static boolean describe(long addr, long vma) throws IOException {
        String line = mapping(addr);
        if (line == null) return false;
        Long flags = smapsFlags.get(line);
        if (flags == null) {
            smapsFlags = readSmapsFlags();
            flags = smapsFlags.get(line);
        }
        // start-end perms offset dev inode [path]
        String[] f = line.trim().split("\\s+", 6);
        int dash = f[0].indexOf('-');
        long start = Long.parseUnsignedLong(f[0].substring(0, dash), 16);
        long end = Long.parseUnsignedLong(f[0].substring(dash + 1), 16);
        long offset = Long.parseUnsignedLong(f[2], 16);
        long inode = Long.parseLong(f[4]);
        String path = f.length > 5 ? f[5] : "";
        boolean special = path.startsWith("[v"); // [vdso], [vvar], [vvar_vclock]
        NativeMemory.putLong(vma + VM_START, start);
        NativeMemory.putLong(vma + VM_END, end);
        NativeMemory.putLong(vma + VM_PGOFF, inode != 0 ? offset >>> 12 : special ? 0 : start >>> 12);
        NativeMemory.putLong(vma + VM_FILE, inode != 0 ? FILE : 0);
        NativeMemory.putLong(vma + VM_FLAGS, flags != null ? flags : permsFlags(f[1]));
        return true;
    }

    /** The line of /proc/self/maps whose range contains {@code addr}, or null. */
    private static String mapping(long addr) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(Path.of("/proc/self/maps"), StandardCharsets.ISO_8859_1)) {
            for (String line; (line = in.readLine()) != null; ) {
                long[] range = range(line);
                if (range == null || Long.compareUnsigned(addr, range[0]) < 0 || Long.compareUnsigned(addr, range[1]) >= 0) continue;
                if (line.endsWith("[vsyscall]")) continue; // the gate area: shown in the map, no vma of the mm
                return line;
            }
            return null;
        }
    }

    /** Each smaps header line with the vm_flags bits 0-31 of its VmFlags line. */
    private static Map<String, Long> readSmapsFlags() throws IOException {
        Map<String, Long> flags = new java.util.HashMap<>();
        try (BufferedReader in = Files.newBufferedReader(Path.of("/proc/self/smaps"), StandardCharsets.ISO_8859_1)) {
            String header = null;
            for (String line; (line = in.readLine()) != null; ) {
                if (range(line) != null) {
                    header = line;
                } else if (header != null && line.startsWith("VmFlags:")) {
                    long v = 0;
                    for (String m : line.substring(8).trim().split("\\s+")) {
                        Integer bit = FLAG_BITS.get(m);
                        if (bit != null) v |= 1L << bit;
                    }
                    flags.put(header, v);
                    header = null;
                }
            }
        }
        return Map.copyOf(flags);
    }

    /** {start, end} of a maps/smaps header line, or null for any other line. */
    private static long[] range(String line) {
        int dash = line.indexOf('-');
        int space = line.indexOf(' ');
        if (dash <= 0 || space <= dash || !isHex(line, 0, dash) || !isHex(line, dash + 1, space)) return null;
        return new long[] {Long.parseUnsignedLong(line.substring(0, dash), 16), Long.parseUnsignedLong(line.substring(dash + 1, space), 16)};
    }

    /** VM_READ, VM_WRITE, VM_EXEC, VM_SHARED from the perms column (when smaps has no VmFlags line). */
    private static long permsFlags(String perms) {
        long f = 0;
        if (perms.charAt(0) == 'r') f |= 1;
        if (perms.charAt(1) == 'w') f |= 2;
        if (perms.charAt(2) == 'x') f |= 4;
        if (perms.charAt(3) == 's') f |= 8;
        return f;
    }

    private static boolean isHex(String s, int from, int to) {
        if (to <= from) return false;
        for (int i = from; i < to; i++) if (Character.digit(s.charAt(i), 16) < 0) return false;
        return true;
    }
}
