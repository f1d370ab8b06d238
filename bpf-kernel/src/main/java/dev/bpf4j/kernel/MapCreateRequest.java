package dev.bpf4j.kernel;

/**
 * The {@code BPF_MAP_CREATE} attributes bpf4j sets. {@code innerMapFd} is the template map of an
 * {@code ARRAY_OF_MAPS} / {@code HASH_OF_MAPS} (else 0); {@code btfFd} with {@code btfKeyTypeId} and
 * {@code btfValueTypeId} give the map BTF key and value types (0: none), which the kernel needs to find a
 * {@code struct bpf_spin_lock} in the value.
 */
public record MapCreateRequest(int mapType, int keySize, int valueSize, int maxEntries, int mapFlags, String name,
                               int innerMapFd, int btfFd, int btfKeyTypeId, int btfValueTypeId) {
    public MapCreateRequest {
        java.util.Objects.requireNonNull(name, "name");
    }
}
