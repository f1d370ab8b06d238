package dev.bpf4j.api;

import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.MapSpec;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.btf.BtfValue;

import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The first stage: an object file opened but not loaded (libbpf's {@code bpf_object__open}, cilium's
 * {@code CollectionSpec}). Edit map sizes and initial global values here, then {@link #load}. Not
 * thread-safe; each edit replaces the immutable {@link BpfObjectSpec} it holds.
 */
public final class OpenObject {
    private BpfObjectSpec spec;

    OpenObject(BpfObjectSpec spec) { this.spec = Objects.requireNonNull(spec); }

    /** The object as edited so far. */
    public BpfObjectSpec spec() { return spec; }

    /** Replaces the whole spec (for edits this class has no shortcut for). */
    public OpenObject spec(BpfObjectSpec edited) {
        this.spec = Objects.requireNonNull(edited);
        return this;
    }

    /**
     * Edits one map ({@code m -> m.withMaxEntries(4096)}).
     *
     * @throws dev.bpf4j.runtime.BpfNotFoundException when the object has no such map
     */
    public OpenObject map(String name, UnaryOperator<MapSpec> edit) {
        spec = spec.withMap(edit.apply(spec.map(name)));
        return this;
    }

    /**
     * libbpf's {@code bpf_map__set_max_entries}.
     *
     * @throws dev.bpf4j.runtime.BpfNotFoundException when the object has no such map
     */
    public OpenObject maxEntries(String map, int maxEntries) { return map(map, m -> m.withMaxEntries(maxEntries)); }

    /** The initial value of a global variable (exactly its size), e.g. a {@code const volatile} setting in {@code .rodata}. */
    public OpenObject variable(String name, byte[] value) {
        spec = spec.withVariable(name, value);
        return this;
    }

    /** The initial value of an integer or enum global variable, range-checked against its BTF type. */
    public OpenObject variable(String name, long value) {
        spec = spec.withVariable(name, value);
        return this;
    }

    /**
     * The initial value of a global variable by its BTF type: a number, an enumerator's name, a record
     * or {@code Map} for a struct, a {@code String} for a char array ({@code BtfValues.encode}).
     */
    public OpenObject variable(String name, Object value) {
        spec = spec.withVariable(name, value);
        return this;
    }

    /** The initial value a global variable has so far, decoded by its BTF type. */
    public BtfValue variable(String name) { return spec.variableTyped(name); }

    /**
     * Edits one program (e.g. its type, when the section name does not say it).
     *
     * @throws dev.bpf4j.runtime.BpfNotFoundException when the object has no such program
     */
    public OpenObject program(String name, UnaryOperator<ProgramSpec> edit) {
        spec = spec.withProgram(edit.apply(spec.program(name)));
        return this;
    }

    /**
     * Creates the maps and loads every autoload program into the engine: the second stage.
     *
     * @throws dev.bpf4j.verifier.VerifierException   when the verifier rejects a program (names it, the pc and the reason)
     * @throws dev.bpf4j.runtime.BpfLoadException      when a map or program cannot be made, or the engine is the kernel
     *                                                 (use {@code KernelObject} from bpf4j-kernel for that)
     */
    public BpfObject load(ObjectLoadOptions options) { return ObjectLoader.load(spec, options); }

    /**
     * {@link #load(ObjectLoadOptions)} on the named engine ("interp" or "jit") with default options.
     *
     * @throws dev.bpf4j.runtime.BpfNotFoundException when that engine's jar is not on the class path
     * @throws dev.bpf4j.runtime.BpfLoadException     as {@link #load(ObjectLoadOptions)}
     */
    public BpfObject load(String engine) { return load(ObjectLoadOptions.engine(engine)); }
}
