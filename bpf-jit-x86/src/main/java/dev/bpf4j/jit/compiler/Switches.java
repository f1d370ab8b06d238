package dev.bpf4j.jit.compiler;

/**
 * The JIT's on/off switches, system properties named in full at each use ({@code bpf4j.jit.*}, so a
 * grep for the property finds its use): each is on unless set to {@code false}. They exist to
 * measure and test a path against the one it replaced; read where they are asked (at each load, or
 * once where a class keeps the answer).
 */
public final class Switches {
    private Switches() {}

    /** False only when {@code -D<property>=false}. */
    public static boolean on(String property) { return !"false".equals(System.getProperty(property)); }
}
