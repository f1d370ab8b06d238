/**
 * BPF Type Format: {@code .BTF} (header, every type kind up to ENUM64, string section) and the
 * func_info / line_info records of {@code .BTF.ext}, which map instructions to functions and to
 * source lines. CO-RE relocation records are not read yet.
 */
package dev.bpf4j.btf;
