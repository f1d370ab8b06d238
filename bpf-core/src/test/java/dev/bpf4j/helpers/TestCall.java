package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;

import java.util.ArrayList;
import java.util.List;

/** A HelperCall for tests: the run's memory is a list of regions (native buffers it allocates, plus any added). */
final class TestCall implements HelperCall, AutoCloseable {
    private final List<MemoryRegion> regions = new ArrayList<>();
    private final List<Long> owned = new ArrayList<>();
    Long exitR0;
    dev.bpf4j.runtime.RunContext runContext;

    @Override public dev.bpf4j.runtime.RunContext runContext() { return runContext; }

    @Override public void replaceRegion(MemoryRegion old, MemoryRegion now) {
        regions.set(regions.indexOf(old), now);
    }

    @Override public String programName() { return "test_prog"; }
    @Override public int pc() { return 7; }

    @Override public boolean accessible(long address, long size, boolean write) {
        if (size <= 0 || size > Integer.MAX_VALUE) return false;
        for (MemoryRegion r : regions) if (r.allows(address, (int) size, write)) return true;
        return false;
    }

    @Override public void exit(long r0) { exitR0 = r0; }

    TestCall region(MemoryRegion r) {
        regions.add(r);
        return this;
    }

    TestCall regions(List<MemoryRegion> rs) {
        regions.addAll(rs);
        return this;
    }

    /** A zeroed native buffer the "program" may access (like a stack slot). */
    long buffer(int size, boolean writable) {
        long a = NativeMemory.allocate(size);
        owned.add(a);
        regions.add(new MemoryRegion("buf" + owned.size(), a, size, writable));
        return a;
    }

    /** A native buffer the program may NOT access. */
    long hidden(int size) {
        long a = NativeMemory.allocate(size);
        owned.add(a);
        return a;
    }

    long call(HelperRegistry reg, int id, long... args) {
        long[] r = java.util.Arrays.copyOf(args, 5);
        return reg.lookup(id).orElseThrow(() -> new AssertionError("no helper " + id)).body().call(this, r[0], r[1], r[2], r[3], r[4]);
    }

    long cstring(String s) {
        byte[] b = (s + "\0").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        long a = buffer(b.length, false);
        NativeMemory.write(a, b, 0, b.length);
        return a;
    }

    @Override public void close() { owned.forEach(NativeMemory::free); }
}
