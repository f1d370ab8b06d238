/**
 * Native-code knowledge with no BPF in it.
 *
 * <ul>
 *   <li>Where code is: {@link dev.bpf4j.unwind.CodeMap} (generated regions with unwind rows, registered
 *       by the JIT) and {@link dev.bpf4j.unwind.ProcessCode} (those plus every executable mapping of
 *       {@code /proc/self/maps}; file-backed ones as {@link dev.bpf4j.unwind.NativeModule}s whose ELF
 *       symbols are read lazily; re-read on a miss).</li>
 *   <li>Naming it: {@link dev.bpf4j.unwind.Symbolizer} turns an ip into a {@link dev.bpf4j.unwind.Frame}
 *       ({@code module!symbol+0xoff}); {@link dev.bpf4j.unwind.SyntheticFrames} interns Java frames to
 *       non-canonical ips, which {@link dev.bpf4j.unwind.JavaStackSource} uses for runs without registers.</li>
 *   <li>Walking it: {@link dev.bpf4j.unwind.Unwinder} goes from a register set (ip, sp, bp) over a
 *       {@link dev.bpf4j.unwind.MemoryView} — the live stack within {@link dev.bpf4j.unwind.ThreadStack}
 *       bounds, or a {@link dev.bpf4j.unwind.SnapshotMemoryView} — to a {@link dev.bpf4j.unwind.StackTrace};
 *       {@link dev.bpf4j.unwind.FrameWalker} is its older list-returning form.</li>
 * </ul>
 *
 * The ELF reader it reads modules with is the module {@code bpf4j-elf} (package {@code dev.bpf4j.elf}).
 */
package dev.bpf4j.unwind;
