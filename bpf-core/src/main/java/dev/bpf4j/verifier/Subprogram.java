package dev.bpf4j.verifier;

/**
 * One function of a program: the slots {@code [start, end)}. Subprogram 0 is the main program;
 * every other one starts at the target of a {@code call local} (bpf-to-bpf call) and ends where
 * the next one starts, as in the kernel's {@code check_subprogs}.
 */
public record Subprogram(int index, int start, int end) {
    public Subprogram {
        if (index < 0 || start < 0 || end <= start) {
            throw new IllegalArgumentException("bad subprogram " + index + " [" + start + ", " + end + ")");
        }
    }

    public int length() { return end - start; }

    public boolean contains(int pc) { return pc >= start && pc < end; }
}
