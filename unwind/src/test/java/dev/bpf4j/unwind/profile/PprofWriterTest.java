package dev.bpf4j.unwind.profile;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.UnknownFieldSet;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pprof profile read back with protobuf-java's own wire parser and interpreted with the field
 * numbers of pprof's profile.proto: sample types, string table, functions, locations, samples (leaf
 * first), period. Rebuilding the folded stacks from it gives the input back.
 */
class PprofWriterTest {
    private static UnknownFieldSet parse(byte[] gz) throws IOException {
        byte[] raw = new GZIPInputStream(new ByteArrayInputStream(gz)).readAllBytes();
        return UnknownFieldSet.parseFrom(raw);
    }

    private static UnknownFieldSet message(com.google.protobuf.ByteString b) throws IOException { return UnknownFieldSet.parseFrom(b); }

    private static long varint(UnknownFieldSet m, int field) {
        return m.hasField(field) ? m.getField(field).getVarintList().get(0) : 0;
    }

    private static List<Long> packed(UnknownFieldSet m, int field) throws IOException {
        List<Long> out = new ArrayList<>();
        if (!m.hasField(field)) return out;
        for (var bytes : m.getField(field).getLengthDelimitedList()) {
            CodedInputStream in = bytes.newCodedInput();
            while (!in.isAtEnd()) out.add(in.readRawVarint64());
        }
        out.addAll(m.getField(field).getVarintList());
        return out;
    }

    @Test
    void readsBackAsTheSameStacksWithPprofsFieldNumbers() throws IOException {
        FoldedStacks f = new FoldedStacks();
        f.add(List.of("main", "sub1", "sub2"), 6);
        f.add(List.of("main", "sub1"), 2);
        f.add(List.of("[unknown]"), 1);
        UnknownFieldSet p = parse(PprofWriter.gzipped(f, 10_101_010L, 1_700_000_000_000_000_000L, 3_000_000_000L));

        List<String> strings = new ArrayList<>();
        for (var b : p.getField(6).getLengthDelimitedList()) strings.add(b.toStringUtf8());
        assertThat(strings.get(0)).isEmpty();
        List<String> sampleTypes = new ArrayList<>();
        for (var b : p.getField(1).getLengthDelimitedList()) {
            UnknownFieldSet vt = message(b);
            sampleTypes.add(strings.get((int) varint(vt, 1)) + "/" + strings.get((int) varint(vt, 2)));
        }
        assertThat(sampleTypes).containsExactly("samples/count", "cpu/nanoseconds");
        UnknownFieldSet periodType = message(p.getField(11).getLengthDelimitedList().get(0));
        assertThat(strings.get((int) varint(periodType, 1))).isEqualTo("cpu");
        assertThat(varint(p, 12)).isEqualTo(10_101_010L);
        assertThat(varint(p, 9)).isEqualTo(1_700_000_000_000_000_000L);
        assertThat(varint(p, 10)).isEqualTo(3_000_000_000L);

        Map<Long, String> functionName = new HashMap<>();
        for (var b : p.getField(5).getLengthDelimitedList()) {
            UnknownFieldSet fn = message(b);
            functionName.put(varint(fn, 1), strings.get((int) varint(fn, 2)));
        }
        Map<Long, String> locationName = new HashMap<>();
        for (var b : p.getField(4).getLengthDelimitedList()) {
            UnknownFieldSet loc = message(b);
            UnknownFieldSet line = message(loc.getField(4).getLengthDelimitedList().get(0));
            assertThat(varint(loc, 1)).isPositive();
            locationName.put(varint(loc, 1), functionName.get(varint(line, 1)));
        }
        assertThat(locationName.values()).containsExactlyInAnyOrder("main", "sub1", "sub2", "[unknown]");

        FoldedStacks back = new FoldedStacks();
        for (var b : p.getField(2).getLengthDelimitedList()) {
            UnknownFieldSet sample = message(b);
            List<Long> ids = packed(sample, 1), values = packed(sample, 2);
            assertThat(values).hasSize(2);
            assertThat(values.get(1)).isEqualTo(values.get(0) * 10_101_010L);
            List<String> rootFirst = new ArrayList<>();
            for (int i = ids.size() - 1; i >= 0; i--) rootFirst.add(locationName.get(ids.get(i)));
            back.add(rootFirst, values.get(0));
        }
        assertThat(back.format()).isEqualTo(f.format());
    }

    @Test
    void aNonPositivePeriodIsRefused() {
        assertThatThrownBy(() -> PprofWriter.gzipped(new FoldedStacks(), 0, 0, 0)).hasMessageContaining("sampling period 0 ns");
    }
}
