package dev.bpf4j.maps;

import dev.bpf4j.runtime.BpfException;

/** A map operation failed: carries the (positive) errno the kernel would return and a clear message. */
public final class BpfMapException extends BpfException {
    private final int errno;

    public BpfMapException(int errno, String message) {
        super(Errno.name(errno) + ": " + message);
        this.errno = Math.abs(errno);
    }

    /** The positive errno, e.g. {@link Errno#EEXIST}. */
    public int errno() { return errno; }

    /** Throws for a negative errno result of a map operation; returns normally for 0. */
    static void check(int result, BpfMap map, String op) {
        if (result < 0) throw new BpfMapException(-result, map.describe() + ": " + op + " failed" + hint(-result));
    }

    private static String hint(int errno) {
        switch (errno) {
            case Errno.ENOENT: return " (no such key)";
            case Errno.EEXIST: return " (key exists and BPF_NOEXIST was given)";
            case Errno.E2BIG: return " (map is full or index out of range)";
            case Errno.EINVAL: return " (invalid flags or operation not valid for this map type)";
            case Errno.ENOMEM: return " (no free element)";
            default: return "";
        }
    }
}
