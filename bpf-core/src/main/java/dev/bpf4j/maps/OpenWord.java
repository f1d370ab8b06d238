package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

import java.lang.ref.Cleaner;

/**
 * A native word that reads 1 while a map is open and 0 once it is closed, freed only when the map
 * (its only holder) is unreachable: a JIT that inlines lookups tests it and calls the helper (which
 * refuses a closed map) instead of handing out an address in freed memory.
 */
final class OpenWord {
    private static final Cleaner CLEANER = Cleaner.create();

    private final long address;

    OpenWord() {
        long word = NativeMemory.allocate(8);
        NativeMemory.putLong(word, 1);
        this.address = word;
        CLEANER.register(this, () -> NativeMemory.free(word));
    }

    long address() { return address; }

    /** Marks the map closed; call it before the map's native memory goes. */
    void close() { NativeMemory.putLong(address, 0); }
}
