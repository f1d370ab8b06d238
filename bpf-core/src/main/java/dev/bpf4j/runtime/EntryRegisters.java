package dev.bpf4j.runtime;

/**
 * What r1..r{entryArgs} hold when a program starts, which decides how the verifier types them
 * (docs/verifier.md).
 */
public enum EntryRegisters {
    /** Plain values the caller passes (a raw program's arguments): scalars. */
    VALUES,
    /**
     * The conformance suites' convention: r1 points at a memory block of unknown size whose accesses
     * are checked at run time, r2 is its length. Its address differs between runs and engines, so
     * the verifier keeps it a pointer and refuses to let its bits escape.
     */
    MEMORY_BLOCK,
    /** r1 is a kernel program type's context (the object loader's programs): constant offsets, packet fields typed. */
    CONTEXT
}
