package dev.bpf4j.object;

import dev.bpf4j.runtime.LoadPhase;
import dev.bpf4j.btf.Btf;
import dev.bpf4j.btf.BtfType;
import dev.bpf4j.btf.BtfValue;
import dev.bpf4j.btf.BtfValues;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.BpfNotFoundException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

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
        return LoadPhase.guard(() -> ObjectReader.load(copy, ObjectNames.objectName(name)));
    }

    /**
     * Reads and parses an object file.
     *
     * @throws BpfLoadException when the file cannot be read or is not a valid BPF object (the message says which phase and why)
     */
    public static BpfObjectSpec read(Path path) {
        byte[] data;
        try {
            data = Files.readAllBytes(path);
        } catch (IOException | OutOfMemoryError e) {
            throw new BpfLoadException("read " + path + ": " + e, e);
        }
        return LoadPhase.guard(() -> ObjectReader.load(data, ObjectNames.objectName(String.valueOf(path.getFileName()))));
    }

    public Optional<ProgramSpec> findProgram(String programName) {
        return programs.stream().filter(p -> p.name().equals(programName)).findFirst();
    }

    /**
     * The program of that (function) name.
     *
     * @throws BpfNotFoundException when the object has none (the message lists its programs)
     */
    public ProgramSpec program(String programName) {
        return findProgram(programName).orElseThrow(() -> notFound("program", programName, programs.stream().map(ProgramSpec::name).toList(),
                "programs"));
    }

    public Optional<MapSpec> findMap(String mapName) {
        return maps.stream().filter(m -> m.name().equals(mapName)).findFirst();
    }

    /**
     * The map of that name ({@code .maps} or global data such as {@code obj.bss}).
     *
     * @throws BpfNotFoundException when the object has none (the message lists its maps)
     */
    public MapSpec map(String mapName) {
        return findMap(mapName).orElseThrow(() -> notFound("map", mapName, maps.stream().map(MapSpec::name).toList(), "maps"));
    }

    private BpfNotFoundException notFound(String kind, String wanted, List<String> names, String plural) {
        return new BpfNotFoundException(kind, wanted, names, "object '" + name + "' has no " + kind + " '" + wanted + "' ("
                + plural + ": " + (names.isEmpty() ? "none" : String.join(", ", names)) + ")");
    }

    /** The global variables of {@code .data}, {@code .rodata*} and {@code .bss*} (empty without BTF). */
    public List<GlobalVariable> variables() {
        List<GlobalVariable> out = new ArrayList<>();
        if (btf == null) return out;
        for (MapSpec m : maps) {
            if (!m.isInternal() || m.section().equals(".kconfig") || m.valueTypeId() == 0) continue;
            if (!(btf.type(m.valueTypeId()) instanceof BtfType.Datasec ds)) continue;
            for (BtfType.VarSecinfo v : ds.vars()) {
                if (btf.type(v.type()) instanceof BtfType.Var var && var.linkage() == BtfType.Var.GLOBAL) {
                    out.add(new GlobalVariable(var.name(), m.name(), m.section(), (int) v.offset(), (int) v.size(), var.type()));
                }
            }
        }
        return out;
    }

    /**
     * The global variable of that name.
     *
     * @throws BpfNotFoundException when the object has none (the message lists its variables)
     */
    public GlobalVariable variable(String variableName) {
        return variables().stream().filter(v -> v.name().equals(variableName)).findFirst()
                .orElseThrow(() -> notFound("global variable", variableName, variables().stream().map(GlobalVariable::name).toList(),
                        "variables"));
    }

    /** The current initial value of a global variable. */
    public byte[] variableValue(String variableName) {
        GlobalVariable v = variable(variableName);
        return Arrays.copyOfRange(map(v.mapName()).contents(), v.offset(), v.offset() + v.size());
    }

    /** A copy whose global variable starts with {@code value} (exactly its size), e.g. a {@code const volatile} setting. */
    public BpfObjectSpec withVariable(String variableName, byte[] value) {
        GlobalVariable v = variable(variableName);
        if (value.length != v.size()) {
            throw new IllegalArgumentException("variable '" + variableName + "' is " + v.size() + " bytes, the value " + value.length);
        }
        MapSpec m = map(v.mapName());
        byte[] contents = m.contents();
        System.arraycopy(value, 0, contents, v.offset(), value.length);
        return withMap(m.withContents(contents));
    }

    /** {@link #withVariable(String, Object)} for an integer or enum: range-checked, never truncated. */
    public BpfObjectSpec withVariable(String variableName, long value) { return withVariable(variableName, (Object) value); }

    /**
     * A copy whose global variable starts with {@code value}, encoded by the variable's BTF type
     * ({@link BtfValues#encode}: numbers range-checked, records and maps for structs, strings for char arrays).
     */
    public BpfObjectSpec withVariable(String variableName, Object value) {
        GlobalVariable v = variable(variableName);
        if (btf.resolveSize(v.typeId()) != v.size()) { // a hostile .BTF must not make us allocate its claimed size
            throw new BpfLoadException("variable '" + variableName + "': its BTF type is " + btf.resolveSize(v.typeId()) + " bytes, the variable " + v.size());
        }
        return withVariable(variableName, BtfValues.encode(btf, v.typeId(), value, "variable '" + variableName + "' ("
                + BtfValues.describe(btf, v.typeId()) + " in " + v.section() + ")"));
    }

    /** The current initial value of a global variable, decoded by its BTF type. */
    public BtfValue variableTyped(String variableName) {
        return BtfValues.decode(btf, variable(variableName).typeId(), variableValue(variableName), 0);
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
