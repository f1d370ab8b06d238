package dev.bpf4j.cli.trace;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.OpenObject;
import dev.bpf4j.object.BpfObjectSpec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The bundled stackcount program ({@code cli/src/main/bpf/stackcount.c}, built by clang-14 with
 * {@code cli/src/main/bpf/build.sh} into this package's resources): a kprobe program that does
 * {@code counts[bpf_get_stackid(ctx, &stacks, 0)] += 1} atomically, with a {@code STACK_TRACE} map of
 * 127-deep traces.
 *
 * <p>The object declares 16384 buckets (what a kernel would preallocate). Two distinct stacks whose
 * jhash2 ids share a bucket make the second one {@code -EEXIST} (counted as {@code [stackid error -17]}),
 * and ids depend on where libraries are mapped: with 20 stacks that is about one run in 80. In
 * process an empty bucket costs one reference, so {@link #open()} widens the map to {@value #BUCKETS}
 * buckets (one run in 5,000 for 20 stacks).
 */
public final class StackCount {
    public static final String PROGRAM = "stackcount";
    private static final String RESOURCE = "stackcount.o";
    static final int BUCKETS = 1 << 20;

    private StackCount() {}

    /** The bundled object, parsed and ready to load. */
    public static OpenObject open() {
        try (InputStream in = StackCount.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("the bundled " + RESOURCE + " is missing from the class path");
            return BpfObject.open(BpfObjectSpec.parse(in.readAllBytes(), RESOURCE)).maxEntries("stacks", BUCKETS);
        } catch (IOException e) {
            throw new UncheckedIOException("read the bundled " + RESOURCE + ": " + e.getMessage(), e);
        }
    }
}
