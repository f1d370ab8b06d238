package dev.bpf4j.cli.profile;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.OpenObject;
import dev.bpf4j.object.BpfObjectSpec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The bundled profile program ({@code cli/src/main/bpf/profile.c}, built by clang-14 with
 * {@code cli/src/main/bpf/build.sh} into this package's resources): a perf_event program that does
 * {@code counts[bpf_get_stackid(ctx, &stack_traces, BPF_F_USER_STACK)] += 1} per sample (BCC's
 * profile.py, user stacks only), a failed id counted under its negative errno.
 */
public final class ProfileObject {
    public static final String PROGRAM = "do_perf_event";
    static final String RESOURCE = "profile.o";

    private ProfileObject() {}

    /** The bundled object, parsed and ready to load. */
    public static OpenObject open() {
        try (InputStream in = ProfileObject.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("the bundled " + RESOURCE + " is missing from the class path");
            return BpfObject.open(BpfObjectSpec.parse(in.readAllBytes(), RESOURCE));
        } catch (IOException e) {
            throw new UncheckedIOException("read the bundled " + RESOURCE + ": " + e.getMessage(), e);
        }
    }
}
