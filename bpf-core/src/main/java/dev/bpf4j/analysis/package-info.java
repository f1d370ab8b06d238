/**
 * Static analyses that let an engine leave run-time memory checks out without changing what a
 * program does. {@link dev.bpf4j.analysis.StackProof} proves loads and stores through registers to
 * lie inside the current stack frame; {@link dev.bpf4j.analysis.RegionProof} proves them inside the
 * data buffer of the entry r1/r2 convention, for a copy of main that an entry guard picks
 * (docs/jit-performance.md). Used by the JIT and the jvm engine.
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules; it may change in any release.
 */
package dev.bpf4j.analysis;
