package dev.bpf4j.object;

/**
 * A global variable of the object ({@code int counter;}, {@code const volatile u32 threshold;}):
 * {@code size} bytes at {@code offset} of the single value of the internal map {@code mapName}.
 * Found through the BTF DATASEC of its section; static and hidden variables are not listed, as in
 * libbpf's skeletons.
 */
public record GlobalVariable(String name, String mapName, String section, int offset, int size, int typeId) {}
