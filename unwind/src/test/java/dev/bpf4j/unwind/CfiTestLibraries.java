package dev.bpf4j.unwind;

/** {@link CfiChainLibrary} for tests in other packages. */
public final class CfiTestLibraries {
    private CfiTestLibraries() {}

    /** The address of {@code name} in cfichain.c built with or without frame pointers. */
    public static long symbol(boolean framePointers, String name) { return CfiChainLibrary.get(framePointers).symbol(name); }
}
