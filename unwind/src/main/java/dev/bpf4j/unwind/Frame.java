package dev.bpf4j.unwind;

/**
 * One symbolized instruction pointer. {@code module} is the file or code generator that holds the
 * ip ("libc.so.6", the JIT's module name) and {@code symbol} the function; either may be null.
 * {@code offset} is from the symbol's start, or from the module's ELF base when there is no symbol.
 */
public record Frame(long ip, String module, String symbol, long offset) {
    public static Frame unknown(long ip) { return new Frame(ip, null, null, 0); }

    public boolean known() { return module != null || symbol != null; }

    /**
     * {@code module!symbol+0xoff}; {@code module+0xoff} without a symbol; the bare symbol for a
     * synthetic Java frame ({@code Class.method(File:line)}); {@code [unknown]} when nothing is known.
     */
    @Override public String toString() {
        if (!known()) return "[unknown]";
        if (symbol == null) return module + "+0x" + Long.toHexString(offset);
        String s = offset == 0 ? symbol : symbol + "+0x" + Long.toHexString(offset);
        return module == null ? s : module + "!" + s;
    }
}
