package dev.bpf4j.cli;

import dev.bpf4j.api.RunOptions;
import dev.bpf4j.btf.MapBtf;
import dev.bpf4j.kernel.KernelLoadException;
import dev.bpf4j.kernel.object.KernelObject;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.MapSpec;
import dev.bpf4j.object.ProgramSpec;

import java.util.List;

/**
 * {@code bpf4j run OBJ.o --engine kernel}: the object loaded into Linux by bpf4j-kernel's
 * {@link KernelObject} (as libbpf would), the program test-run with BPF_PROG_TEST_RUN, the output the
 * same as the in-process engines'.
 */
final class KernelObjectRun {
    private KernelObjectRun() {}

    static EngineRun run(BpfObjectSpec spec, String program, RunOptions options, boolean dumpMaps) {
        ProgramSpec p = spec.program(program);
        if (!KernelObject.testRunnable(p)) {
            throw new KernelLoadException("program '" + program + "': the kernel has no BPF_PROG_TEST_RUN for " + p.type() + " programs");
        }
        EngineRun.Builder b = new EngineRun.Builder();
        try (KernelObject k = KernelObject.load(spec, List.of(program))) {
            b.result(k.run(program, options), options.repeat() > 1);
            if (dumpMaps) k.dump().forEach((name, entries) -> b.map(name, spec.map(name).type().isPercpu(), entries, mapBtf(spec, spec.map(name))));
        }
        return b.build();
    }

    /** The map's BTF as the kernel got it (KernelObject creates a map-in-map without BTF). */
    private static MapBtf mapBtf(BpfObjectSpec spec, MapSpec m) {
        return m.type().isMapInMap() ? null : MapBtf.of(spec.btf(), m.keyTypeId(), m.valueTypeId());
    }
}
