/**
 * Kernel helpers written in Java, registered by {@link dev.bpf4j.helpers.BpfHelpers} under their uapi
 * ids ({@link dev.bpf4j.runtime.HelperIds}): map access, queue/stack, spin locks, ring buffer, time, CPU and task
 * identity, fault-free probe reads ({@link dev.bpf4j.helpers.ProbeMemory}), {@code bpf_trace_printk}
 * and {@code bpf_snprintf}; and, through the engine ({@link dev.bpf4j.runtime.HelperCall#callSubprogram},
 * {@link dev.bpf4j.runtime.HelperCall#tailCall}), {@code bpf_loop}, {@code bpf_for_each_map_elem} and
 * {@code bpf_tail_call}. Every pointer/size argument is checked with
 * {@link dev.bpf4j.runtime.HelperCall#checkArgument} before it is touched.
 */
package dev.bpf4j.helpers;
