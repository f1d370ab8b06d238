package dev.bpf4j.kernel;

import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.RunContext;

import java.util.ArrayList;
import java.util.List;

/**
 * How one {@link RunContext} looks to the kernel. Each entry register r1..r{@code entryArgs} is
 * either a pointer into one of the run's {@link MemoryRegion}s — which the kernel engine mirrors
 * in an array map value — or a plain number. Only regions some entry register points into are
 * mirrored: the kernel program has no other way to reach bpf4j memory.
 *
 * <p>{@link #key()} is what the translated kernel program depends on (region sizes and
 * permissions, which register points where, the numbers); runs with equal keys share one loaded
 * program.
 */
final class RunLayout {
    /** What the kernel program needs to know about a mirrored region. */
    record Shape(long length, boolean writable) {}

    /** The value of one entry register. */
    sealed interface Binding permits Constant, InRegion {}
    record Constant(long value) implements Binding {}
    record InRegion(int region, long offset) implements Binding {}

    record Key(List<Shape> regions, List<Binding> args) {}

    private final List<MemoryRegion> regions;
    private final Key key;

    private RunLayout(List<MemoryRegion> regions, Key key) {
        this.regions = regions;
        this.key = key;
    }

    static RunLayout of(RunContext ctx, int entryArgs) {
        List<MemoryRegion> mirrored = new ArrayList<>();
        List<Binding> args = new ArrayList<>();
        for (int i = 0; i < entryArgs; i++) {
            long value = ctx.arg(i);
            MemoryRegion r = regionHolding(ctx, value);
            if (r == null) {
                args.add(new Constant(value));
                continue;
            }
            int index = indexOf(mirrored, r);
            if (index < 0) {
                index = mirrored.size();
                mirrored.add(r);
            }
            args.add(new InRegion(index, value - r.start()));
        }
        List<Shape> shapes = mirrored.stream().map(r -> new Shape(r.length(), r.writable())).toList();
        return new RunLayout(List.copyOf(mirrored), new Key(shapes, List.copyOf(args)));
    }

    /** The first non-empty region with {@code start <= address < end}, or null. */
    private static MemoryRegion regionHolding(RunContext ctx, long address) {
        for (MemoryRegion r : ctx.regions()) {
            if (r.length() > 0 && Long.compareUnsigned(address, r.start()) >= 0
                    && Long.compareUnsigned(address - r.start(), r.length()) < 0) {
                return r;
            }
        }
        return null;
    }

    private static int indexOf(List<MemoryRegion> list, MemoryRegion r) {
        for (int i = 0; i < list.size(); i++) if (list.get(i) == r) return i;
        return -1;
    }

    /** The mirrored regions, in the order of {@link Key#regions()}. */
    List<MemoryRegion> regions() { return regions; }

    Key key() { return key; }
}
