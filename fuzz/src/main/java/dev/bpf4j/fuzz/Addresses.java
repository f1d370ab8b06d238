package dev.bpf4j.fuzz;

/**
 * Names the address of a run-time error so that it can be compared between engines and runs:
 * relative to the memory block ({@code mem+0x10}, {@code mem-0x8}) when it lies within a page of it
 * (the run allocates that page on both sides itself, see {@link Execution#GUARD}),
 * absolute when it is a small number (a null or scalar pointer, {@code 0x8}), else {@code native}:
 * somewhere in a stack or heap the engines place differently, compared by kind and pc only.
 */
final class Addresses {
    private Addresses() {}

    static final long NEAR = 4096;

    static String describe(long address, long memBase, long memLength) {
        if (memBase != 0 && address >= memBase - NEAR && address < memBase + memLength + NEAR) {
            long d = address - memBase;
            return d < 0 ? String.format("mem-0x%x", -d) : String.format("mem+0x%x", d);
        }
        if (address >= -NEAR && address < 1L << 16) return address < 0 ? String.format("-0x%x", -address) : String.format("0x%x", address);
        return "native";
    }
}
