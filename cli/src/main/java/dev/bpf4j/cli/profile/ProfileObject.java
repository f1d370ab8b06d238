package dev.bpf4j.cli.profile;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.OpenObject;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.maps.MapType;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The bundled profile program ({@code cli/src/main/bpf/profile.c}, built by clang-14 with
 * {@code cli/src/main/bpf/build.sh} into this package's resources): a perf_event program that does
 * {@code counts[bpf_get_stackid(ctx, &stack_traces, BPF_F_USER_STACK)] += 1} per sample (BCC's
 * profile.py, user stacks only), a failed id counted under its negative errno; and its per-thread
 * form ({@code profile_threads.c}, for {@code profile --threads}), whose counts are keyed as
 * profile.py keys them — process, thread, comm and stack id ({@link MapStacks.ThreadStack}).
 */
public final class ProfileObject {
    public static final String PROGRAM = "do_perf_event";
    static final String RESOURCE = "profile.o";
    static final String THREADS_RESOURCE = "profile_threads.o";

    private ProfileObject() {}

    /** The bundled object, parsed and ready to load. */
    public static OpenObject open() { return open(RESOURCE); }

    /** The bundled per-thread profile ({@code profile_threads.o}, program {@value #PROGRAM}). */
    public static OpenObject openThreads() { return open(THREADS_RESOURCE); }

    private static OpenObject open(String resource) {
        try (InputStream in = ProfileObject.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException("the bundled " + resource + " is missing from the class path");
            return BpfObject.open(BpfObjectSpec.parse(in.readAllBytes(), resource));
        } catch (IOException e) {
            throw new UncheckedIOException("read the bundled " + resource + ": " + e.getMessage(), e);
        }
    }

    /** Whether {@code open} counts per thread: a hash map to u64 with {@link MapStacks.ThreadStack}'s key. */
    public static boolean countsPerThread(OpenObject open) {
        return open.spec().maps().stream().anyMatch(m -> (m.type() == MapType.HASH || m.type() == MapType.LRU_HASH)
                && m.keySize() == MapStacks.ThreadStack.SIZE && m.valueSize() == 8);
    }
}
