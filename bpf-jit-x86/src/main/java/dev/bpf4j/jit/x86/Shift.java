package dev.bpf4j.jit.x86;

/** Shift/rotate group 2 operations and their ModRM reg field. */
public enum Shift {
    ROL(0), ROR(1), SHL(4), SHR(5), SAR(7);

    public final int ext;

    Shift(int ext) { this.ext = ext; }
}
