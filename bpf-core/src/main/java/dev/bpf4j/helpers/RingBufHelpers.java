package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.RingBufMap;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeForm;

/**
 * {@code bpf_ringbuf_output/reserve/submit/discard/query} over {@link RingBufMap}. submit and discard
 * take only the sample pointer: it must be a pending reservation of one of the table's ring buffers (the
 * kernel verifier's reference tracking guarantees that; here a wrong pointer ends the run with
 * BAD_HELPER_ARGUMENT instead of corrupting the ring).
 */
final class RingBufHelpers {
    private RingBufHelpers() {}

    static void register(HelperRegistry.Builder b, MapTable maps) {
        b.addNative(HelperIds.RINGBUF_OUTPUT, "bpf_ringbuf_output", (call, r1, r2, r3, r4, r5) -> {
            RingBufMap rb = ring(call, maps, "bpf_ringbuf_output", r1);
            call.checkArgument(2, "bpf_ringbuf_output data (r2)", r2, r3, false);
            return rb.output(r2, r3, r4);
        }, new NativeForm.RingBufOutput(handle -> block(maps, handle)));
        b.addNative(HelperIds.RINGBUF_RESERVE, "bpf_ringbuf_reserve", (call, r1, r2, r3, r4, r5) -> {
            RingBufMap rb = ring(call, maps, "bpf_ringbuf_reserve", r1);
            return r3 != 0 ? 0 : rb.reserve(r2); // unknown flags: NULL
        }, new NativeForm.RingBufReserve(handle -> block(maps, handle)));
        b.addNative(HelperIds.RINGBUF_SUBMIT, "bpf_ringbuf_submit", (call, r1, r2, r3, r4, r5) -> commit(call, maps, "bpf_ringbuf_submit", r1, r2, false),
                new NativeForm.RingBufCommit(false, () -> blocks(maps)));
        b.addNative(HelperIds.RINGBUF_DISCARD, "bpf_ringbuf_discard", (call, r1, r2, r3, r4, r5) -> commit(call, maps, "bpf_ringbuf_discard", r1, r2, true),
                new NativeForm.RingBufCommit(true, () -> blocks(maps)));
        b.addNative(HelperIds.RINGBUF_QUERY, "bpf_ringbuf_query", (call, r1, r2, r3, r4, r5) -> ring(call, maps, "bpf_ringbuf_query", r1).query(r2),
                new NativeForm.RingBufQuery(handle -> block(maps, handle)));
    }

    /** The block of the open ring buffer behind {@code handle}, for a JIT's native ring buffer helpers; null for anything else. */
    private static NativeForm.RingBufOutput.RingBlock block(MapTable maps, long handle) {
        return maps.find(handle).filter(m -> m instanceof RingBufMap && m.isOpen()).map(m -> block((RingBufMap) m)).orElse(null);
    }

    /** The blocks of the table's open ring buffers, in table order (the order {@link #commit} tries them). */
    private static java.util.List<NativeForm.RingBufOutput.RingBlock> blocks(MapTable maps) {
        return maps.maps().stream().filter(m -> m instanceof RingBufMap && m.isOpen()).map(m -> block((RingBufMap) m)).toList();
    }

    private static NativeForm.RingBufOutput.RingBlock block(RingBufMap rb) {
        return new NativeForm.RingBufOutput.RingBlock(rb.baseAddress(), rb.openWord(), rb.capacity());
    }

    private static RingBufMap ring(HelperCall call, MapTable maps, String helper, long handle) {
        return maps.resolve(call, helper, handle, RingBufMap.class, "RINGBUF");
    }

    private static long commit(HelperCall call, MapTable maps, String helper, long sample, long flags, boolean discard) {
        for (BpfMap m : maps.maps()) {
            if (m instanceof RingBufMap && m.isOpen() && ((RingBufMap) m).commit(sample, flags, discard)) return 0;
        }
        throw call.badArgument(String.format("%s: r1 = 0x%x is not a pending sample from bpf_ringbuf_reserve"
                + " (never reserved, or already submitted/discarded)", helper, sample));
    }
}
