/**
 * Running compiled code: {@code ExecutableMemory} (mapped RW, written, flipped to RX; never RWX),
 * {@code EnvBlock} (the off-heap per-run state r12 points at, pooled per thread by
 * {@code ThreadRuns} together with its reusable {@code JitRun}: a run allocates nothing unless it
 * calls a helper, which gets a {@code RunHelperCall} view),
 * {@code JitExecutable} (jffi entry call, code-map registration, safe close) and
 * {@code HelperBridge} (one jffi closure that dispatches Java helpers by id to the thread's
 * current {@code JitRun}, or, for a block native code built, to a {@code JitRun} over that block:
 * {@code DirectRuns}).
 */
package dev.bpf4j.jit.runtime;
