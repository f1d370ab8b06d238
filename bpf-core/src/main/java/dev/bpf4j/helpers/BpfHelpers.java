package dev.bpf4j.helpers;

import dev.bpf4j.maps.MapTable;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.stack.StackHelpers;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * Registers bpf4j's kernel helpers into a {@link HelperRegistry} under their kernel ids
 * ({@link HelperIds}). Map helpers resolve map handles through the object's {@link MapTable}.
 *
 * <p>{@code bpf_loop}, {@code bpf_for_each_map_elem} and {@code bpf_tail_call} need the engine's
 * support ({@link dev.bpf4j.runtime.HelperCall#callSubprogram}, {@link dev.bpf4j.runtime.HelperCall#tailCall});
 * on an engine without it they end the run with HELPER_FAILED. The stack helpers
 * ({@code bpf_get_stackid}, {@code bpf_get_stack}) live in {@link dev.bpf4j.stack.StackHelpers}.
 */
public final class BpfHelpers {
    private BpfHelpers() {}

    /** Where {@code bpf_trace_printk} output goes and how far probe reads may reach. */
    public record Options(Consumer<String> traceSink, ProbeMemory.Mode probeMode) {
        public Options {
            Objects.requireNonNull(traceSink);
            Objects.requireNonNull(probeMode);
        }

        /** trace_printk lines to standard error; probe reads of any readable process memory. */
        public static Options defaults() {
            return new Options(line -> System.err.print(line.endsWith("\n") ? line : line + "\n"), ProbeMemory.Mode.PROCESS);
        }

        public Options withTraceSink(Consumer<String> sink) { return new Options(sink, probeMode); }
        public Options withProbeMode(ProbeMemory.Mode mode) { return new Options(traceSink, mode); }
    }

    /**
     * Helpers about the current task ({@code bpf_get_current_pid_tgid}, {@code bpf_get_current_comm},
     * the CPU and its node): a program whose runs carry a {@link dev.bpf4j.runtime.CurrentTask} of
     * their own must call them by their Java bodies ({@link HelperRegistry.Builder#withoutNativeForms}).
     */
    public static final java.util.Set<Integer> OF_CURRENT_TASK = TaskHelpers.OF_CURRENT_TASK;

    /** Adds every helper to {@code b}; map helpers use {@code maps}. */
    public static HelperRegistry.Builder register(HelperRegistry.Builder b, MapTable maps, Options options) {
        ProbeMemory mem = new ProbeMemory(options.probeMode());
        MapHelpers.register(b, maps);
        RingBufHelpers.register(b, maps);
        TaskHelpers.register(b);
        ProcessHelpers.register(b, mem);
        VmaHelpers.register(b, mem);
        ProbeHelpers.register(b, mem);
        PrintkHelpers.register(b, mem, options.traceSink());
        CallbackHelpers.register(b, maps);
        StringHelpers.register(b);
        TimeHelpers.register(b);
        SkbHelpers.register(b);
        SkbResizeHelpers.register(b);
        VlanHelpers.register(b);
        EcnHelper.register(b);
        XdpHelpers.register(b);
        CsumDiffHelper.register(b);
        RedirectHelper.register(b, maps);
        TailCallHelper.register(b, maps);
        StackHelpers.register(b, maps);
        return b;
    }

    /** A registry of every helper over {@code maps}, with {@link Options#defaults()}. */
    public static HelperRegistry registry(MapTable maps) {
        return register(HelperRegistry.builder(), maps, Options.defaults()).build();
    }

    public static HelperRegistry registry(MapTable maps, Options options) {
        return register(HelperRegistry.builder(), maps, options).build();
    }
}
