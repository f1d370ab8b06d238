/**
 * Linux perf interop for generated code: {@link dev.bpf4j.unwind.perf.PerfMapWriter} (perf maps),
 * {@link dev.bpf4j.unwind.perf.JitDumpWriter} (jitdump files), both listeners on a
 * {@link dev.bpf4j.unwind.CodeMap}; {@link dev.bpf4j.unwind.perf.PerfInterop} switches them on for
 * the global map.
 */
package dev.bpf4j.unwind.perf;
