/**
 * BPF to x86-64 translation. {@code JitCompiler} runs {@code Translator} passes; each pass emits
 * every function (prologue, one emitter call per slot, epilogue) and the shared stubs (error exit,
 * raise paths, the out-of-line memory check). Errors found at run time are recorded in the env
 * block ({@code EnvLayout}) and leave through the single error exit, which restores the entry
 * frame; Java then throws the same {@code BpfRuntimeException} the interpreter does.
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules; it may change in any release.
 */
package dev.bpf4j.jit.compiler;
