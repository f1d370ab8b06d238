/**
 * Native-code knowledge with no BPF in it: the process-wide {@link dev.bpf4j.unwind.CodeMap} of
 * generated code regions (symbol, module, unwind rows), the {@link dev.bpf4j.unwind.FrameWalker}
 * that unwinds from a register set (ip, sp, bp) over a {@link dev.bpf4j.unwind.MemoryView} (live
 * memory bounded by {@link dev.bpf4j.unwind.ProcMaps}, or a {@link dev.bpf4j.unwind.SnapshotMemoryView}).
 */
package dev.bpf4j.unwind;
