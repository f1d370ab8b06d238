package dev.bpf4j.unwind.perf;

import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeMapListener;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.UnwindRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PerfMapWriterTest {
    static CodeRegion region(long start, long size, String name) {
        return new CodeRegion(start, size, name, "test", List.of(new UnwindRow(0, (int) size, CfaRule.FRAME_POINTER)));
    }

    @Test void writesHexStartSizeAndNameForEveryRegionIncludingThoseBeforeIt(@TempDir Path dir) throws Exception {
        CodeMap map = new CodeMap();
        map.register(region(0x7f0000001000L, 0x40, "bpf_prog_0123456789abcdef_main"));
        Path file = dir.resolve("perf-1.map");
        try (PerfMapWriter w = new PerfMapWriter(file)) {
            map.addListener(w);
            map.register(region(0x7f0000001040L, 0x1c, "bpf_prog_fedcba9876543210_F"));
            map.addListener(w); // no second replay
        }
        assertThat(Files.readAllLines(file)).containsExactly(
                "7f0000001000 40 bpf_prog_0123456789abcdef_main",
                "7f0000001040 1c bpf_prog_fedcba9876543210_F");
    }

    @Test void appendsToAnExistingMap(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("perf-2.map");
        Files.writeString(file, "1000 10 other_jit\n");
        try (PerfMapWriter w = new PerfMapWriter(file)) {
            w.registered(region(0x2000, 0x20, "mine"));
        }
        assertThat(Files.readAllLines(file)).containsExactly("1000 10 other_jit", "2000 20 mine");
    }

    @Test void defaultPathIsTmpPerfPidMap() {
        assertThat(PerfMapWriter.defaultPath().toString()).isEqualTo("/tmp/perf-" + ProcessHandle.current().pid() + ".map");
    }

    @Test void listenersHearRegistrationsAndRemovalsInOrderAndAFailingOneDoesNotBreakTheMap() {
        CodeMap map = new CodeMap();
        List<String> heard = new ArrayList<>();
        CodeMapListener recorder = new CodeMapListener() {
            @Override public void registered(CodeRegion r) { heard.add("+" + r.symbol()); }
            @Override public void unregistered(CodeRegion r) { heard.add("-" + r.symbol()); }
        };
        map.addListener(r -> { throw new IllegalStateException("broken listener"); });
        map.addListener(recorder);
        CodeRegion a = region(0x1000, 0x10, "a");
        map.register(a);
        map.register(region(0x2000, 0x10, "b"));
        assertThat(map.unregister(a)).isTrue();
        assertThat(map.unregister(a)).isFalse();
        assertThat(map.removeListener(recorder)).isTrue();
        map.register(region(0x3000, 0x10, "c"));
        assertThat(heard).containsExactly("+a", "+b", "-a");
        assertThat(map.size()).isEqualTo(2);
    }
}
