/**
 * Static analyses the JIT uses to emit less code without changing what a program does.
 * {@link dev.bpf4j.jit.analysis.StackProof} proves loads and stores through registers to lie
 * inside the current stack frame, so their run-time memory check can be left out
 * (docs/jit-performance.md).
 */
package dev.bpf4j.jit.analysis;
