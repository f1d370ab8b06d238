package dev.bpf4j.cli;

import dev.bpf4j.cli.trace.TraceRun;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code trace --engine both} reports when the engines do not agree. */
class TraceDifferencesTest {
    private static TraceRun.Result result(String engine, long returned, String hits, String map) {
        return new TraceRun.Result(engine, returned, List.of(hits), List.of(), Optional.empty(), List.of(map));
    }

    @Test
    void namesWhatOnlyOneEngineSaw() {
        TraceRun.Result a = result("interp", 47, "leaf: 10 hits, 0 errors, 0 missed", "{\"name\": \"counts\", \"entries\": [1]}");
        assertThat(TraceCommand.differences(a, result("jit", 47, "leaf: 10 hits, 0 errors, 0 missed", "{\"name\": \"counts\", \"entries\": [1]}"))).isEmpty();
        assertThat(TraceCommand.differences(a, result("jit", 48, "leaf: 9 hits, 0 errors, 0 missed", "{\"name\": \"counts\", \"entries\": [1]}")))
                .containsExactly("interp only: returned 47", "interp only: leaf: 10 hits, 0 errors, 0 missed",
                        "jit only: returned 48", "jit only: leaf: 9 hits, 0 errors, 0 missed");
    }
}
