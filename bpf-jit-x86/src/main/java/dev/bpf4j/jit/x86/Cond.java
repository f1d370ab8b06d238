package dev.bpf4j.jit.x86;

/** x86 condition codes (the low nibble of Jcc / SETcc). */
public enum Cond {
    O(0x0), NO(0x1), B(0x2), AE(0x3), E(0x4), NE(0x5), BE(0x6), A(0x7),
    S(0x8), NS(0x9), P(0xa), NP(0xb), L(0xc), GE(0xd), LE(0xe), G(0xf);

    public final int code;

    Cond(int code) { this.code = code; }

    public Cond negate() { return values()[code ^ 1]; }
}
