package dev.bpf4j.helpers;

import dev.bpf4j.runtime.Helper;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.NativeForm;
import dev.bpf4j.runtime.HelperRegistry;

/**
 * {@code bpf_probe_read}, {@code _user}, {@code _kernel} and their {@code _str} forms (r1 = dst,
 * r2 = u32 size, r3 = unsafe source). bpf4j runs in one address space, so user and kernel variants read
 * the same way, through {@link ProbeMemory}: a source the run may access is copied, any other is read
 * fault-free by the kernel or refused, and a failed read returns {@code -EFAULT} with dst zero-filled. The
 * {@code _kernel} forms return {@code -ERANGE} for a source Linux never reads (NULL, small numbers,
 * non-canonical), as {@code copy_from_kernel_nofault} does.
 */
final class ProbeHelpers {
    private ProbeHelpers() {}

    static void register(HelperRegistry.Builder b, ProbeMemory mem) {
        plain(b, HelperIds.PROBE_READ, "bpf_probe_read", mem);
        plain(b, HelperIds.PROBE_READ_USER, "bpf_probe_read_user", mem);
        Helper kernel = (call, r1, r2, r3, r4, r5) -> {
            long size = r2 & 0xffffffffL;
            call.checkArgument(1, "bpf_probe_read_kernel dst (r1)", r1, size, true);
            return mem.readKernel(call, 3, r1, size, r3);
        };
        add(b, HelperIds.PROBE_READ_KERNEL, "bpf_probe_read_kernel", kernel, nativeForm(mem, true));
        str(b, HelperIds.PROBE_READ_STR, "bpf_probe_read_str", mem);
        str(b, HelperIds.PROBE_READ_USER_STR, "bpf_probe_read_user_str", mem);
        Helper kernelStr = (call, r1, r2, r3, r4, r5) -> {
            long size = r2 & 0xffffffffL;
            call.checkArgument(1, "bpf_probe_read_kernel_str dst (r1)", r1, size, true);
            return mem.readKernelStr(call, 3, r1, size, r3);
        };
        add(b, HelperIds.PROBE_READ_KERNEL_STR, "bpf_probe_read_kernel_str", kernelStr, strForm(mem, true));
    }

    private static void plain(HelperRegistry.Builder b, int id, String name, ProbeMemory mem) {
        Helper body = (call, r1, r2, r3, r4, r5) -> {
            long size = r2 & 0xffffffffL;
            call.checkArgument(1, name + " dst (r1)", r1, size, true);
            return mem.read(call, 3, r1, size, r3);
        };
        add(b, id, name, body, nativeForm(mem, false));
    }

    private static void add(HelperRegistry.Builder b, int id, String name, Helper body, NativeForm form) {
        if (form == null) b.add(id, name, body);
        else b.addNative(id, name, body, form);
    }

    /**
     * The native form of the plain reads: only in PROCESS mode (a REGIONS_ONLY read refuses what native code
     * would read) and where libc has {@code process_vm_readv} (else the body fails every such read).
     */
    private static NativeForm.ProbeRead nativeForm(ProbeMemory mem, boolean kernel) {
        if (mem.mode() != ProbeMemory.Mode.PROCESS || !Libc.canReadProcessMemory()) return null;
        return new NativeForm.ProbeRead(kernel, (int) Libc.getpid());
    }

    /** The native form of the {@code _str} reads: where the plain reads have one ({@link #nativeForm}). */
    private static NativeForm.ProbeReadStr strForm(ProbeMemory mem, boolean kernel) {
        NativeForm.ProbeRead plain = nativeForm(mem, kernel);
        return plain == null ? null : new NativeForm.ProbeReadStr(kernel, plain.pid());
    }

    private static void str(HelperRegistry.Builder b, int id, String name, ProbeMemory mem) {
        Helper body = (call, r1, r2, r3, r4, r5) -> {
            long size = r2 & 0xffffffffL;
            call.checkArgument(1, name + " dst (r1)", r1, size, true);
            return mem.readStr(call, 3, r1, size, r3);
        };
        add(b, id, name, body, strForm(mem, false));
    }
}
