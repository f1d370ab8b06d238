package dev.bpf4j.helpers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The calling thread's cgroup in the cgroup v2 hierarchy, as the kernel's {@code cgroup_id()} names it: the
 * kernfs node id, which is the inode number of the cgroup's directory in a cgroup2 mount. Read live from
 * {@code /proc/thread-self/cgroup} (the {@code 0::} line) and the cgroup2 mount in {@code /proc/self/mountinfo}
 * on every call, because a thread can be moved between cgroups while it runs.
 */
final class Cgroups {
    private Cgroups() {}

    /** The cgroup's path below the hierarchy's root ("/" for the root), split into its components. */
    static List<String> path() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/cgroup"))) {
                if (line.startsWith("0::")) {
                    String p = line.substring(3);
                    return p.equals("/") ? List.of() : List.of(p.substring(1).split("/"));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/thread-self/cgroup: " + e.getMessage(), e);
        }
        throw new IllegalStateException("/proc/thread-self/cgroup has no cgroup v2 (0::) line");
    }

    /** Where cgroup2 is mounted; the ids need its inodes. */
    static Path mount() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] f = line.split(" ");
                int dash = List.of(f).indexOf("-");
                if (dash > 0 && dash + 1 < f.length && f[dash + 1].equals("cgroup2") && f[3].equals("/")) return Path.of(f[4]);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/self/mountinfo: " + e.getMessage(), e);
        }
        throw new IllegalStateException("no cgroup2 file system is mounted: the cgroup ids are its directories' inode numbers");
    }

    /** cgroup_id of the thread's cgroup. */
    static long currentId() { return idOf(path()); }

    /**
     * cgroup_id of the thread's ancestor at {@code level} (0: the root), the cgroup itself when that is its
     * level; 0 when level is deeper than the cgroup (cgroup_ancestor gives NULL).
     */
    static long ancestorId(long level) {
        List<String> path = path();
        return level > path.size() ? 0 : idOf(path.subList(0, (int) level));
    }

    /** The inode number of the cgroup directory at {@code path} below the cgroup2 mount. */
    private static long idOf(List<String> path) {
        Path dir = mount();
        for (String part : path) dir = dir.resolve(part);
        try {
            return ((Number) Files.getAttribute(dir, "unix:ino")).longValue();
        } catch (IOException | UnsupportedOperationException e) {
            throw new IllegalStateException("cannot stat cgroup directory " + dir + ": " + e.getMessage(), e);
        }
    }
}
