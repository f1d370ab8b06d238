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
 * {@code counts[bpf_get_stackid(ctx, &stacks, 0)] += 1} atomically, with a 16384-bucket
 * {@code STACK_TRACE} map of 127-deep traces.
 */
public final class StackCount {
    public static final String PROGRAM = "stackcount";
    private static final String RESOURCE = "stackcount.o";

    private StackCount() {}

    /** The bundled object, parsed and ready to load. */
    public static OpenObject open() {
        try (InputStream in = StackCount.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("the bundled " + RESOURCE + " is missing from the class path");
            return BpfObject.open(BpfObjectSpec.parse(in.readAllBytes(), RESOURCE));
        } catch (IOException e) {
            throw new UncheckedIOException("read the bundled " + RESOURCE + ": " + e.getMessage(), e);
        }
    }
}
