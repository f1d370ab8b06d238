/**
 * Loading and running compiled code: {@code JitLoader} (binds helpers, compiles, maps: the work of
 * {@code JitEngine}, handing out the JIT's own types to bpf4j's tools and tests), {@code ExecutableMemory} (mapped RW, written, flipped to RX; never RWX),
 * {@code EnvBlock} (the off-heap per-run state r12 points at, one per thread and nesting level in
 * {@code ThreadRuns} together with its reusable {@code JitRun}: a run allocates nothing unless it
 * calls a helper, which gets a {@code RunScopedHelperCall} view),
 * {@code JitExecutable} (the entry call through {@code JniEntry}, or jffi where JNI cannot be bound; code-map registration, safe close: runs publish the
 * program in a hazard slot of their thread, close waits for the slots of every thread in
 * {@code RunRegistry} after a {@code Membarrier}) and
 * {@code HelperBridge} (the upcall, through JNI or a jffi closure, that dispatches Java helpers by id to the thread's
 * current {@code JitRun}, or, for a block native code built, to a {@code JitRun} over that block:
 * {@code DirectRuns}).
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules; it may change in any release.
 */
package dev.bpf4j.jit.runtime;
