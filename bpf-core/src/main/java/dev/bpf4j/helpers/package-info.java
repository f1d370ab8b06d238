/**
 * Kernel helpers written in Java, registered by {@link dev.bpf4j.helpers.BpfHelpers} under their uapi
 * ids ({@link dev.bpf4j.helpers.HelperIds}): map access, queue/stack, spin locks, ring buffer, time, CPU and task
 * identity, fault-free probe reads ({@link dev.bpf4j.helpers.ProbeMemory}), {@code bpf_trace_printk}
 * and {@code bpf_snprintf}. Every pointer/size argument is checked with
 * {@link dev.bpf4j.runtime.HelperCall#checkArgument} before it is touched.
 */
package dev.bpf4j.helpers;
