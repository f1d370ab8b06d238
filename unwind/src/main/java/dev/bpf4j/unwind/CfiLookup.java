package dev.bpf4j.unwind;

import dev.bpf4j.unwind.cfi.CfiRow;

import java.util.Optional;

/** Where an {@link Unwinder} finds the {@code .eh_frame} row for a pc of native code. */
@FunctionalInterface
public interface CfiLookup {
    /** No call-frame information: frame pointers only. */
    CfiLookup NONE = pc -> Optional.empty();

    Optional<CfiRow> rowAt(long pc);
}
