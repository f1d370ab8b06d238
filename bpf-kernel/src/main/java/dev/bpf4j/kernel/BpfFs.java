package dev.bpf4j.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The BPF filesystem at {@code /sys/fs/bpf}, where objects are pinned. Nothing in bpf4j needs it to
 * run programs; it is here for tools that pin. {@link #ensureMounted()} mounts it when absent, as
 * {@code mount -t bpf bpf /sys/fs/bpf} does (mount(2), syscall 165).
 */
public final class BpfFs {
    private BpfFs() {}

    public static final Path DEFAULT = Path.of("/sys/fs/bpf");

    /** True when a filesystem of type {@code bpf} is mounted at {@code dir} (per /proc/self/mounts). */
    public static boolean isMounted(Path dir) {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/self/mounts"));
            String target = dir.toAbsolutePath().normalize().toString();
            for (String line : lines) {
                String[] f = line.split(" ");
                if (f.length >= 3 && f[1].equals(target) && f[2].equals("bpf")) return true;
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /** Mounts bpffs at {@link #DEFAULT} unless it is already there; returns the path. */
    public static Path ensureMounted() { return ensureMounted(DEFAULT); }

    public static Path ensureMounted(Path dir) {
        if (isMounted(dir)) return dir;
        try (OffHeap source = OffHeap.cString("bpf"); OffHeap target = OffHeap.cString(dir.toString());
             OffHeap type = OffHeap.cString("bpf")) {
            NativeSyscall.checked("mount(bpf, " + dir + ")", NativeSyscall.SYS_MOUNT,
                    source.address(), target.address(), type.address(), 0, 0);
        }
        return dir;
    }

    /** Unmounts the filesystem at {@code dir} (umount2(2), syscall 166, no flags). */
    public static void unmount(Path dir) {
        try (OffHeap target = OffHeap.cString(dir.toString())) {
            NativeSyscall.checked("umount2(" + dir + ")", NativeSyscall.SYS_UMOUNT2, target.address(), 0, 0, 0, 0);
        }
    }
}
