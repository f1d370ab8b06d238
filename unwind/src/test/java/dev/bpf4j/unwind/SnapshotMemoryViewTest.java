package dev.bpf4j.unwind;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The copying constructor against {@link SnapshotMemoryView#over}, which reads the caller's array itself. */
class SnapshotMemoryViewTest {
    @Test
    void overReadsTheArrayItselfAndTheConstructorACopy() {
        byte[] bytes = new byte[16];
        bytes[8] = 1;
        SnapshotMemoryView copy = new SnapshotMemoryView(0x1000, bytes);
        SnapshotMemoryView over = SnapshotMemoryView.over(0x1000, bytes);
        bytes[8] = 2;
        assertThat(copy.readLong(0x1008)).isEqualTo(1);
        assertThat(over.readLong(0x1008)).isEqualTo(2);
        assertThat(over.contains(0x1008)).isTrue();
        assertThat(over.contains(0x1009)).isFalse();
        assertThat(over.size()).isEqualTo(16);
    }
}
