package dev.bpf4j.unwind.profile;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import java.util.zip.GZIPOutputStream;

/**
 * Folded stacks as a gzipped pprof profile ({@code profile.proto} of github.com/google/pprof, what
 * {@code go tool pprof} and speedscope read), written by hand: two sample values per stack,
 * {@code samples/count} and {@code cpu/nanoseconds} (count x sampling period); one function and one
 * location per distinct frame name (folded stacks carry no addresses); locations leaf first.
 */
public final class PprofWriter {
    private PprofWriter() {}

    // profile.proto field numbers
    private static final int PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
            PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11,
            PROFILE_PERIOD = 12;
    private static final int VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2;
    private static final int SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2;
    private static final int LOCATION_ID = 1, LOCATION_LINE = 4;
    private static final int LINE_FUNCTION_ID = 1;
    private static final int FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3;

    /**
     * @param periodNanos CPU time one sample stands for (1e9 / frequency)
     * @param timeNanos   wall-clock start of the profile, ns since the epoch
     */
    public static byte[] gzipped(FoldedStacks stacks, long periodNanos, long timeNanos, long durationNanos) {
        if (periodNanos <= 0) throw new IllegalArgumentException("sampling period " + periodNanos + " ns must be positive");
        Map<String, Long> strings = new HashMap<>();
        ProtoWriter profile = new ProtoWriter();
        // The string table's entry 0 is "" by definition; written in order of first use.
        List<String> table = new ArrayList<>();
        ToLongFunction<String> str = s -> strings.computeIfAbsent(s, k -> { table.add(k); return (long) table.size() - 1; });
        str.applyAsLong("");

        profile.messageField(PROFILE_SAMPLE_TYPE, valueType(str.applyAsLong("samples"), str.applyAsLong("count")));
        profile.messageField(PROFILE_SAMPLE_TYPE, valueType(str.applyAsLong("cpu"), str.applyAsLong("nanoseconds")));

        Map<String, Long> locationOf = new HashMap<>();
        ProtoWriter functions = new ProtoWriter(), locations = new ProtoWriter();
        for (Map.Entry<List<String>, Long> e : stacks.counts().entrySet()) {
            List<String> rootFirst = e.getKey();
            long[] ids = new long[rootFirst.size()];
            for (int i = 0; i < ids.length; i++) {
                String frame = rootFirst.get(rootFirst.size() - 1 - i);   // pprof lists the leaf first
                Long id = locationOf.get(frame);
                if (id == null) {
                    id = (long) locationOf.size() + 1;                     // ids start at 1: 0 means "none"
                    locationOf.put(frame, id);
                    long name = str.applyAsLong(frame);
                    functions.messageField(PROFILE_FUNCTION, new ProtoWriter().varintField(FUNCTION_ID, id)
                            .varintField(FUNCTION_NAME, name).varintField(FUNCTION_SYSTEM_NAME, name));
                    locations.messageField(PROFILE_LOCATION, new ProtoWriter().varintField(LOCATION_ID, id)
                            .messageField(LOCATION_LINE, new ProtoWriter().varintField(LINE_FUNCTION_ID, id)));
                }
                ids[i] = id;
            }
            profile.messageField(PROFILE_SAMPLE, new ProtoWriter().packedField(SAMPLE_LOCATION_ID, ids)
                    .packedField(SAMPLE_VALUE, new long[] {e.getValue(), e.getValue() * periodNanos}));
        }
        byte[] head = profile.toByteArray();
        ProtoWriter tail = new ProtoWriter();
        for (String s : table) tail.stringField(PROFILE_STRING_TABLE, s);
        tail.varintField(PROFILE_TIME_NANOS, timeNanos).varintField(PROFILE_DURATION_NANOS, durationNanos)
                .messageField(PROFILE_PERIOD_TYPE, valueType(strings.get("cpu"), strings.get("nanoseconds")))
                .varintField(PROFILE_PERIOD, periodNanos);
        return gzip(head, locations.toByteArray(), functions.toByteArray(), tail.toByteArray());
    }

    private static ProtoWriter valueType(long type, long unit) {
        return new ProtoWriter().varintField(VALUE_TYPE_TYPE, type).varintField(VALUE_TYPE_UNIT, unit);
    }

    /** Fields of a message may come in any order, so the parts are simply concatenated. */
    private static byte[] gzip(byte[]... parts) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
            for (byte[] p : parts) gz.write(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
