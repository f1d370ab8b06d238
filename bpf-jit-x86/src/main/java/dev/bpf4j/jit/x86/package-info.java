/**
 * x86-64 machine-code emitters: registers, condition codes, memory operands and the encoder.
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules; it may change in any release.
 */
package dev.bpf4j.jit.x86;
