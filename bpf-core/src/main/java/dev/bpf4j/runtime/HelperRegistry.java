package dev.bpf4j.runtime;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/** The helpers a program may call, by id. Immutable once built. */
public final class HelperRegistry {
    private final Map<Integer, HelperSpec> byId;

    private HelperRegistry(Map<Integer, HelperSpec> byId) { this.byId = Collections.unmodifiableMap(byId); }

    public static final HelperRegistry EMPTY = new HelperRegistry(new TreeMap<>());

    public static Builder builder() { return new Builder(new TreeMap<>()); }

    public Builder toBuilder() { return new Builder(new TreeMap<>(byId)); }

    public Optional<HelperSpec> lookup(int id) { return Optional.ofNullable(byId.get(id)); }

    public boolean contains(int id) { return byId.containsKey(id); }

    /** {@link HelperSpec#forwardArguments} of helper {@code id}; false for an id not here. */
    public boolean forwardArguments(int id) {
        HelperSpec h = byId.get(id);
        return h != null && h.forwardArguments();
    }

    public Collection<HelperSpec> all() { return byId.values(); }

    public static final class Builder {
        private final Map<Integer, HelperSpec> byId;
        private Builder(Map<Integer, HelperSpec> byId) { this.byId = byId; }

        public Builder add(int id, String name, Helper body) {
            byId.put(id, new HelperSpec(id, name, body));
            return this;
        }

        /** A helper an engine may replace by native code as {@code lookupInlining} describes (e.g. {@link LookupInlining#lockValues}). */
        public Builder add(int id, String name, Helper body, LookupInlining lookupInlining) {
            byId.put(id, new HelperSpec(id, name, body, Objects.requireNonNull(lookupInlining), false));
            return this;
        }

        /** A helper that accesses memory only at and above its pointer arguments and runs no program code ({@link HelperSpec#forwardArguments}). */
        public Builder addForward(int id, String name, Helper body) {
            byId.put(id, new HelperSpec(id, name, body, null, true));
            return this;
        }

        /** As {@link #addForward(int, String, Helper)}, and an engine may inline it where r1 is a constant (see {@link LookupInlining}). */
        public Builder addForward(int id, String name, Helper body, LookupInlining lookupInlining) {
            byId.put(id, new HelperSpec(id, name, body, Objects.requireNonNull(lookupInlining), true));
            return this;
        }

        /** A helper whose body computes exactly {@code form}: a JIT may make those native calls itself (see {@link NativeForm}). */
        public Builder addNative(int id, String name, Helper body, NativeForm form) {
            byId.put(id, new HelperSpec(id, name, body, null, false, Objects.requireNonNull(form)));
            return this;
        }

        /**
         * Drops the native form of each of {@code ids} that is here: an engine then calls its Java body,
         * which sees the run's context (a run whose {@link CurrentTask} is not the calling thread).
         */
        public Builder withoutNativeForms(java.util.Set<Integer> ids) {
            for (int id : ids) {
                HelperSpec h = byId.get(id);
                if (h != null && h.nativeForm() != null) {
                    byId.put(id, new HelperSpec(id, h.name(), h.body(), h.lookupInlining(), h.forwardArguments(), null));
                }
            }
            return this;
        }

        public HelperRegistry build() { return new HelperRegistry(new TreeMap<>(byId)); }
    }
}
