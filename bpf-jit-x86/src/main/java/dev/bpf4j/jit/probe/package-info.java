/**
 * Native probes, fentry-style: {@link dev.bpf4j.jit.probe.NativeProbes#attach} turns the 5-byte
 * patchable nop at a native function's entry (gcc {@code -pg -mfentry -mnop-mcount}, after
 * {@code endbr64} with {@code -fcf-protection}) into a {@code call} to a trampoline generated with
 * the JIT's encoder, mapped within ±2 GiB of the function and written through
 * {@code /proc/self/mem} (the text page stays {@code r-x}).
 *
 * <p>The trampoline saves every register into a kernel-layout {@code pt_regs} on its stack
 * (ip = the function, sp and bp as at its entry), builds the two frames ftrace builds for fentry
 * (traced function, then the trampoline) so frame-pointer walks from inside keep the parent, runs
 * each attached program with ctx = &amp;pt_regs — a JIT program by a direct call of its entry with
 * an env block built on the stack (its Java helpers find the run from that block through
 * {@code DirectRuns}), the interpreter and tail-calling JIT code through one upcall into Java
 * ({@code Upcall}: a generated JNI call, or the jffi closure for threads the JVM does not know) that
 * runs it with {@code RunContext} registers = the pt_regs — then restores every
 * register and flag and returns to the function. It is registered in the code map with rows
 * exact at every instruction, and the patched call site with the entry rule.
 *
 * <p>A failing program ends its run only: {@link dev.bpf4j.jit.probe.ProbeLink} counts hits,
 * errors and missed (recursive) hits and keeps the last error. gcc refuses
 * {@code -mnop-mcount} with {@code -fPIC}: build probed libraries {@code -fno-pic}
 * ({@link dev.bpf4j.jit.probe.PatchableLibrary} has the flags and builds C source with them).
 *
 * <p>Return probes (uretprobe-style, {@link dev.bpf4j.jit.probe.NativeProbes#attachReturn}): the
 * entry trampoline also swaps the return address for the process's one return trampoline and keeps
 * the real one on the thread's shadow stack ({@code ReturnTrampoline}); the return runs the return
 * programs with the registers after the {@code ret}. The unwinder maps a swapped slot back to the
 * real address through the code map. See docs/native-probes.md, "Return probes".
 *
 * <p>{@link dev.bpf4j.jit.probe.RootCall} calls a native {@code long fn(long)} through a thunk that
 * ends every stack walk right after {@code fn}, so stacks taken in probes below it are the same ips
 * whatever Java (engine, thread, JIT state) made the call.
 */
package dev.bpf4j.jit.probe;
