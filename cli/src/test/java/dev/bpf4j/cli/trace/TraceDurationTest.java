package dev.bpf4j.cli.trace;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.cli.trace.TraceCommandTest.trace;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bpf4j trace --duration S}: both engines' programs on the same probes at once; the session
 * ends when the entry returns (exact stacks, engines compared), when the time is up while the entry
 * still runs (detached under it, engines not compared), or with no entry at all (this process's own
 * calls: a bare library name such as libc.so.6 goes to dlopen's search path).
 */
class TraceDurationTest {
    @Test
    void endsWhenTheEntryReturnsAndTheEnginesAgree() {
        TraceCommandTest.Run r = trace(TraceLib.path().toString(), "--attach", "leaf", "--call", "drive", "--arg", "3", "--duration", "60", "--engine", "both");
        assertThat(r.status()).as(r.err()).isZero();
        List<String> expected = new ArrayList<>(List.of("== interp"));
        expected.addAll(TraceCommandTest.LEAF);
        expected.add("== jit");
        expected.addAll(TraceCommandTest.LEAF);
        expected.add(TraceCommandTest.AGREE);
        assertThat(r.lines()).containsExactlyElementsOf(expected);
        assertThat(r.err()).contains("ended by return; drive(3) = " + TraceLib.drive(3)).contains("leaf: 10 hits, 0 errors, 0 missed");
    }

    @Test
    void endsWhenTheTimeIsUpWhileTheEntryRuns() {
        TraceCommandTest.Run r = trace(TraceLib.path().toString(), "--attach", "leaf", "--call", "drive", "--arg", "30000000", "--duration", "2", "--engine", "both");
        awaitWorkload();                                  // pid self: its calls would show in the next trace of this JVM
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err()).as(r.out()).contains("ended by duration; drive(30000000) still running");
        assertThat(r.lines()).contains("== interp", "== jit").last().asString().startsWith("== engines not compared");
        // every folded line is a stack of leaf under drive, whichever engine counted it
        assertThat(r.lines()).as(r.out() + r.err()).filteredOn(l -> !l.startsWith("==")).isNotEmpty().allSatisfy(l -> assertThat(l).startsWith("drive;").contains(";leaf "));
    }

    /** Waits for the entry thread a timed-out session left running. */
    private static void awaitWorkload() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("bpf4j-trace-call")) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    @Test
    void withoutAnEntryTracesThisProcessForTheDuration() {
        TraceCommandTest.Run r = trace("libc.so.6", "--attach", "labs", "--duration", "0.2", "--engine", "jit");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err()).contains("ended by duration; no entry called; labs: ");
        assertThat(r.lines()).startsWith("== jit");
    }

    /**
     * libc's malloc in this JVM, whose own threads (VM thread, GC, compilers) call it all the time:
     * those hits are missed, never run in Java on a thread that may not (JavaThreadGate). Before,
     * this stopped the test JVM within a second on either engine.
     */
    @Test
    void mallocOfThisProcessIsTracedWithoutStoppingTheJvm() {
        for (String engine : List.of("interp", "jit")) {
            TraceCommandTest.Run r = trace("libc.so.6", "--attach", "malloc", "--duration", "1", "--engine", engine);
            assertThat(r.status()).as(r.err()).isZero();
            assertThat(r.err()).contains("ended by duration; no entry called; malloc: ").contains(" 0 errors");
            assertThat(r.lines()).startsWith("== " + engine);
        }
    }

    @Test
    void badDurationsAreUsageErrors() {
        assertThat(trace(TraceLib.path().toString(), "--attach", "leaf", "--duration", "-1").err()).contains("--duration needs a positive number of seconds");
        assertThat(trace(TraceLib.path().toString(), "--attach", "leaf", "--duration", "soon").err()).contains("--duration needs a positive number of seconds");
        assertThat(trace(TraceLib.path().toString(), "--attach", "leaf").err()).contains("missing --call");
    }
}
