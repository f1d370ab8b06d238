/**
 * BPF Type Format: {@code .BTF} (header, every type kind up to ENUM64, string section) and the
 * func_info / line_info / core_relo records of {@code .BTF.ext}, which map instructions to
 * functions, to source lines, and to the CO-RE relocations a loader must still apply.
 */
package dev.bpf4j.btf;
