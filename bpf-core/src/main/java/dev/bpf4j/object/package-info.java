/**
 * BPF object files parsed into immutable specs, the way libbpf opens them (no loading, no
 * execution): {@link dev.bpf4j.object.BpfObjectSpec#read} runs the phases "load sections", "load
 * license", "load version", "load BTF", "load maps" (legacy {@code maps}, BTF {@code .maps},
 * global data and {@code .kconfig}), "load programs" (functions split by symbol, types from section
 * names as libbpf's {@code section_defs}) and "apply relocations" (subprograms appended and calls
 * relocated, map loads marked {@code PSEUDO_MAP_FD} / {@code PSEUDO_MAP_VALUE} and listed as
 * {@link dev.bpf4j.object.MapReference}s for the loader to resolve). Specs are immutable; maps,
 * programs and global variables are edited through {@code with...} copies before load.
 */
package dev.bpf4j.object;
