package dev.bpf4j.object;

import dev.bpf4j.btf.Btf;
import dev.bpf4j.elf.LoadPhase;
import dev.bpf4j.runtime.BpfLoadException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * An object file ({@code clang -O2 -g -target bpf -c}) parsed the way libbpf opens it: programs,
 * maps, license and kernel version, not yet loaded anywhere. Immutable; {@code with...} returns
 * edited copies.
 *
 * @param name          object name as libbpf derives it from the file name ("xdp_multi")
 * @param kernelVersion the {@code version} section, 0 when absent
 * @param btf           the parsed {@code .BTF}, or null when the object has none
 */
public record BpfObjectSpec(String name, String license, int kernelVersion, List<ProgramSpec> programs,
                            List<MapSpec> maps, Btf btf) {
    public BpfObjectSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(license, "license");
        programs = List.copyOf(programs);
        maps = List.copyOf(maps);
    }

    /** Parses an object held in memory; {@code name} is its file name or any label. */
    public static BpfObjectSpec parse(byte[] elf, String name) {
        byte[] copy = elf.clone();
        return LoadPhase.guard(() -> ObjectLoader.load(copy, ObjectNames.objectName(name)));
    }

    /** Reads and parses an object file. */
    public static BpfObjectSpec read(Path path) {
        byte[] data;
        try {
            data = Files.readAllBytes(path);
        } catch (IOException | OutOfMemoryError e) {
            throw new BpfLoadException("read " + path + ": " + e, e);
        }
        return LoadPhase.guard(() -> ObjectLoader.load(data, ObjectNames.objectName(String.valueOf(path.getFileName()))));
    }

    public Optional<ProgramSpec> findProgram(String programName) {
        return programs.stream().filter(p -> p.name().equals(programName)).findFirst();
    }

    public ProgramSpec program(String programName) {
        return findProgram(programName).orElseThrow(() -> new NoSuchElementException("object '" + name + "' has no program '"
                + programName + "' (programs: " + programs.stream().map(ProgramSpec::name).collect(Collectors.joining(", ")) + ")"));
    }

    public Optional<MapSpec> findMap(String mapName) {
        return maps.stream().filter(m -> m.name().equals(mapName)).findFirst();
    }

    public MapSpec map(String mapName) {
        return findMap(mapName).orElseThrow(() -> new NoSuchElementException("object '" + name + "' has no map '"
                + mapName + "' (maps: " + maps.stream().map(MapSpec::name).collect(Collectors.joining(", ")) + ")"));
    }

    /** A copy with the map of the same name replaced by {@code map} (renaming is not allowed here: references use names). */
    public BpfObjectSpec withMap(MapSpec map) {
        map(map.name());
        List<MapSpec> out = new ArrayList<>();
        for (MapSpec m : maps) out.add(m.name().equals(map.name()) ? map : m);
        return new BpfObjectSpec(name, license, kernelVersion, programs, out, btf);
    }

    /** A copy with the program of the same name replaced. */
    public BpfObjectSpec withProgram(ProgramSpec program) {
        program(program.name());
        List<ProgramSpec> out = new ArrayList<>();
        for (ProgramSpec p : programs) out.add(p.name().equals(program.name()) ? program : p);
        return new BpfObjectSpec(name, license, kernelVersion, out, maps, btf);
    }
}
