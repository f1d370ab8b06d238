/**
 * Static analyses the JIT uses to emit less code without changing what a program does:
 * {@link dev.bpf4j.jit.analysis.LoadCombining} merges byte loads into one wide load. The proofs
 * that leave memory checks out ({@code StackProof}, {@code RegionProof}) live in bpf-core's
 * {@code dev.bpf4j.analysis}, shared with the jvm engine.
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules; it may change in any release.
 */
package dev.bpf4j.jit.analysis;
