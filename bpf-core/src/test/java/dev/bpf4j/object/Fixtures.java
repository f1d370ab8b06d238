package dev.bpf4j.object;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The committed BPF object fixtures of it-tests (built by their build.sh; tests never need clang). */
public final class Fixtures {
    private Fixtures() {}

    /** Surefire runs in the module directory; the fixtures live beside it in it-tests. */
    public static final Path DIR = Path.of("..", "it-tests", "src", "test", "resources", "objects");

    /** Objects that parse. */
    public static final String[] NAMES = {"xdp_multi", "subprog", "btf_maps", "legacy_maps", "globals", "tracing", "callbacks", "shared_subprog", "core_reloc",
        "packet_moves", "sampled_task"};
    /** Objects that libbpf, and so bpf4j, must reject. */
    public static final String[] INVALID = {"bad_map_field", "bad_static_prog"};

    public static Path path(String name) { return DIR.resolve(name + ".o"); }

    public static byte[] bytes(String name) {
        try {
            return Files.readAllBytes(path(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static BpfObjectSpec spec(String name) { return BpfObjectSpec.read(path(name)); }
}
