/**
 * The public load layer: open an object file into an editable spec ({@link dev.bpf4j.api.BpfObject#open}),
 * adjust maps and globals ({@link dev.bpf4j.api.OpenObject}), load it into an engine
 * ({@link dev.bpf4j.api.ObjectLoadOptions}) and test-run its programs
 * ({@link dev.bpf4j.api.BpfProgram#run} with {@link dev.bpf4j.api.RunOptions} →
 * {@link dev.bpf4j.api.RunResult}) with the kernel's program-type contexts ({@code xdp_md},
 * {@code __sk_buff}, {@code pt_regs}, {@code bpf_perf_event_data}, raw tracepoint arguments, syscall
 * user context). See docs/objects-and-contexts.md.
 */
package dev.bpf4j.api;
