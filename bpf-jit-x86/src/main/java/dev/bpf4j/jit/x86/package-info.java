/** x86-64 machine-code emitters: registers, condition codes, memory operands and the encoder. */
package dev.bpf4j.jit.x86;
