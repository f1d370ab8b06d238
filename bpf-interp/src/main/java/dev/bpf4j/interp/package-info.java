/**
 * The interpreter engine ({@link dev.bpf4j.interp.InterpreterEngine}, name {@code interp}): the
 * reference semantics of bpf4j (docs/runtime-semantics.md, RFC 9669 v1-v4).
 *
 * <ul>
 *   <li>{@code Decoder} rejects what cannot run safely and pre-decodes each slot into one packed
 *       long ({@code InsnCode}); r10 + constant accesses inside the frame get unchecked opcodes.</li>
 *   <li>{@code Interpreter.execute} is the single dispatch loop (kept under 8,000 bytecode bytes).</li>
 *   <li>{@link dev.bpf4j.interp.AluOps}, {@link dev.bpf4j.interp.JmpOps} and
 *       {@link dev.bpf4j.interp.AtomicOps} hold the semantics of every operation, once.</li>
 *   <li>{@code Machine} is one run's state: registers, the off-heap {@code StackFrames}, call
 *       frames, memory checks and the {@link dev.bpf4j.runtime.HelperCall} a helper sees.
 *       Executables pool machines, so runs from several threads never share a stack. It also runs
 *       callbacks (a nested {@code Interpreter.execute} that returns when the callback's frame
 *       exits), switches programs on a tail call, keeps the helper scratch buffers and does the
 *       legacy packet loads.</li>
 * </ul>
 *
 * The stack is zeroed when a machine is created, not between runs: as in the kernel, reading
 * uninitialised stack is the validator's business.
 */
package dev.bpf4j.interp;
