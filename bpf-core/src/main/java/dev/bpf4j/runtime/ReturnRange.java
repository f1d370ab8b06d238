package dev.bpf4j.runtime;

/**
 * The r0 a program type must return at exit, the kernel's {@code check_return_code}: a closed range
 * ({@code u32} values as the kernel compares them). Set per load in {@link LoadOptions#returnRange}.
 */
public record ReturnRange(long min, long max) {
    public boolean contains(long r0) { return r0 >= min && r0 <= max; }
}
