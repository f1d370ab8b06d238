package dev.bpf4j.cli.profile;

import dev.bpf4j.unwind.Symbolizer;
import dev.bpf4j.unwind.SyntheticFrames;
import dev.bpf4j.unwind.profile.Profiler;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** profile_threads.o's key (tgid, pid, stack id, comm[16]) read back and folded under comm-tid. */
class MapStacksThreadsTest {
    private static byte[] key(int tgid, int tid, int id, String comm) {
        ByteBuffer b = ByteBuffer.allocate(MapStacks.ThreadStack.SIZE).order(ByteOrder.LITTLE_ENDIAN).putInt(tgid).putInt(tid).putInt(id);
        b.put(comm.getBytes(StandardCharsets.UTF_8));   // the rest stays NUL, as bpf_get_current_comm leaves it
        return b.array();
    }

    private static byte[] count(long n) { return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(n).array(); }

    @Test
    void eachThreadsStacksAreRootedAtItsCommAndTid() {
        Map<byte[], byte[]> entries = new LinkedHashMap<>();
        entries.put(key(5, 7, 3, "alpha"), count(2));
        entries.put(key(5, 8, 3, "beta"), count(4));          // the same stack on another thread stays apart
        entries.put(key(5, 8, -17, "beta"), count(1));        // -EEXIST: that thread's missed stack
        MapStacks s = MapStacks.of(entries, id -> List.of(0x10L, 0x20L));
        assertThat(s.perThread()).isTrue();
        assertThat(s.counts()).containsExactly(Map.entry(-17, 1L), Map.entry(3, 6L));
        assertThat(s.total()).isEqualTo(7);
        assertThat(s.missed()).isEqualTo(1);
        Map<List<String>, Long> folded = s.folded(new Symbolizer(Profiler.processCode(), SyntheticFrames.global())).counts();
        assertThat(folded).containsOnly(
                Map.entry(List.of("alpha-7", "[unknown]", "[unknown]"), 2L),
                Map.entry(List.of("beta-8", "[unknown]", "[unknown]"), 4L),
                Map.entry(List.of("beta-8", MapStacks.MISSED), 1L));
        assertThat(s.byId()).contains("thread 5/alpha-7 stack 3 2", "thread 5/beta-8 stack -17 1");
    }

    @Test
    void aStackIdKeyHasNoThreadRoot() {
        Map<byte[], byte[]> entries = new LinkedHashMap<>();
        entries.put(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(3).array(), count(2));
        MapStacks s = MapStacks.of(entries, id -> List.of(0x10L));
        assertThat(s.perThread()).isFalse();
        assertThat(s.folded(new Symbolizer(Profiler.processCode(), SyntheticFrames.global())).counts())
                .containsOnly(Map.entry(List.of("[unknown]"), 2L));
    }
}
