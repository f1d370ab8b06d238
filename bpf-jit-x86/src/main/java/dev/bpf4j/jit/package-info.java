/**
 * The x86-64 JIT engine ({@link dev.bpf4j.jit.JitEngine}, name {@code jit}; its internal side is
 * {@code runtime.JitLoader}).
 *
 * <p>Layers, bottom up, modelled on Linux {@code arch/x86/net/bpf_jit_comp.c}:
 * <ol>
 *   <li>{@code x86}: byte emitters ({@code X86Encoder}) over REX/ModRM helpers; every form is
 *       checked against {@code llvm-mc -show-encoding}.</li>
 *   <li>{@code analysis}: {@code StackProof}, which proves accesses inside the frame so the
 *       compiler emits them without a memory check, and {@code RegionProof}, which proves accesses
 *       inside the data buffer (entry r1/r2) for main's guarded copy.</li>
 *   <li>{@code compiler}: the BPF-to-x86 register table ({@code RegMap}), one emitter per
 *       instruction shape (ALU, div/mod, shifts, memory, atomics, jumps, calls), one translate loop,
 *       jump sizes converging over passes and a final pass that checks every slot's offset.</li>
 *   <li>{@code runtime}: W^X executable memory, the per-run env block (status, budget, depth,
 *       region table), the entry call (JNI where it can be bound, else jffi) and the upcall into Java
 *       helpers (generated JNI code, else the jffi closure).</li>
 * </ol>
 *
 * <p>ABI (DESIGN.md): {@code long fn(void *ctx, void *env)}; R0..R10 = rax, rdi, rsi, rdx, rcx, r8,
 * rbx, r13, r14, r15, rbp; r12 = env; r9 = budget left (helper id at a Java helper call);
 * r10/r11 scratch. Every function has a real rbp frame
 * ({@code push rbp; mov rbp, rsp; sub rsp, 512+pad; push saved}) registered with the unwind code map
 * as {@code bpf_prog_<tag>_<name>} (subprograms {@code _F}) with exact unwind rows.
 */
package dev.bpf4j.jit;
