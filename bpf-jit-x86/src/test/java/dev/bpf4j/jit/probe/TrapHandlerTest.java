package dev.bpf4j.jit.probe;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The live-patching signal handlers: HotSpot had no SIGTRAP handler of its own (so ours displaced
 * nothing; a JVM or agent that installs one is chained to), the JVM catches both signals once ours
 * are installed, and a move round with no thread to move is answered by every thread.
 */
class TrapHandlerTest {
    @Test
    void installedOverTheDefaultAndCaught() throws Exception {
        assertThat(TrapHandler.previousHandler()).as("HotSpot on x86-64 installs no SIGTRAP handler").isZero();
        String status = Files.readString(Path.of("/proc/self/status"));
        String caught = status.lines().filter(l -> l.startsWith("SigCgt:")).findFirst().orElseThrow().substring(7).trim();
        long mask = Long.parseUnsignedLong(caught, 16);
        assertThat(mask & (1L << (5 - 1))).as("SIGTRAP caught").isNotZero();
        assertThat(mask & (1L << (TrapHandler.MOVE_SIGNAL - 1))).as("move signal caught").isNotZero();
    }

    /** A move signal outside a round (late, of a round given up) or with another value is not counted. */
    @Test
    void signalsOutsideARoundAreNotCounted() {
        TrapHandler.startRound();
        TrapHandler.endRound();
        long before = TrapHandler.acks();
        assertThat(ThreadMoves.signal(ThreadMoves.gettid(), 12345)).isZero();    // handled before the system call returns
        long round = TrapHandler.startRound();
        try {
            assertThat(ThreadMoves.signal(ThreadMoves.gettid(), round ^ 2)).isZero();
            assertThat(TrapHandler.acks()).isEqualTo(before);
            assertThat(ThreadMoves.signal(ThreadMoves.gettid(), round)).isZero();
            assertThat(TrapHandler.acks()).isEqualTo(before + 1);
        } finally {
            TrapHandler.endRound();
        }
    }

    @Test
    void everyThreadAnswersAMoveRound() {
        long before = TrapHandler.acks();
        assertThat(ThreadMoves.run(new long[]{1}, new long[]{2})).isTrue();
        assertThat(TrapHandler.acks()).isGreaterThan(before);
    }
}
