/**
 * The interpreter engine ({@link dev.bpf4j.interp.InterpreterEngine}, name {@code interp}): the
 * reference semantics of bpf4j (docs/runtime-semantics.md, RFC 9669 v1-v4).
 *
 * <ul>
 *   <li>{@code Decoder} rejects what cannot run safely and pre-decodes each slot into one packed
 *       long ({@code InsnCode}); r10 + constant accesses inside the frame get unchecked opcodes;
 *       {@code Superinstructions} fuses {@code mov} + ALU pairs into 3-address ops, and a few
 *       pairs of array loops (load + jump, two stores, two adds, mov32 + jump).</li>
 *   <li>{@code HotLoop.run} is the call-free half of the dispatch loop (ALU, jumps, in-window
 *       loads and stores); {@code Interpreter.execute} drives it and runs what it hands back
 *       (calls, exit, atomics, slow memory checks, budget errors). Both stay under 8,000 bytecode
 *       bytes. docs/interpreter.md explains what makes them fast. A program that has run 256 times
 *       gets its own hidden-class copy of {@code HotLoop} ({@code OwnLoops}), so that HotSpot
 *       compiles its dispatch from its own profile, not from every program the JVM ran.</li>
 *   <li>{@link dev.bpf4j.isa.AluOps}, {@link dev.bpf4j.isa.JmpOps} and
 *       {@link dev.bpf4j.runtime.AtomicOps} hold the semantics of every operation, once.</li>
 *   <li>{@code Machine} is one run's state: registers (with the memory windows and padding in
 *       slots past r10, see {@code Registers}), the off-heap {@link dev.bpf4j.runtime.StackFrames}, call frames,
 *       memory checks and the {@link dev.bpf4j.runtime.HelperCall} a helper sees. A
 *       {@code MachinePool} gives the first thread to run an executable its own machine without
 *       atomics and shares the rest, so runs from several threads never share a stack. It also
 *       runs callbacks (a nested {@code Interpreter.execute} that returns when the callback's
 *       frame exits), switches programs on a tail call, keeps the helper scratch buffers and does
 *       the legacy packet loads.</li>
 * </ul>
 *
 * Every frame reads as zero until written: entering a frame zeroes it down to the deepest stack
 * access the program can make (docs/runtime-semantics.md "Stack").
 */
package dev.bpf4j.interp;
