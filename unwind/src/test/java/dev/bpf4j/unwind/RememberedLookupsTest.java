package dev.bpf4j.unwind;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two replays of one sample unwind over the same code even when the process's code changes
 * between them (as when ProcessCode re-reads the maps): the first answer holds until forget().
 */
class RememberedLookupsTest {
    private static final long STACK = 0x7fff0000L;

    @Test
    void answersHoldUntilForgotten() {
        ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(STACK + 16).putLong(0x500010).putLong(0).putLong(0x600020);
        SnapshotMemoryView stack = new SnapshotMemoryView(STACK, b.array());
        AtomicBoolean mapped = new AtomicBoolean(false);                 // 0x600020's library appears later
        Unwinder live = new Unwinder(new CodeMap(), ip -> ip < 0x600000 || mapped.get());
        RememberedLookups memo = new RememberedLookups();
        Unwinder replay = live.remembering(memo);

        assertThat(replay.unwind(0x500000, STACK, STACK, stack).ips()).containsExactly(0x500000L, 0x500010L);
        mapped.set(true);
        assertThat(live.unwind(0x500000, STACK, STACK, stack).ips()).as("the code changed").containsExactly(0x500000L, 0x500010L, 0x600020L);
        assertThat(replay.unwind(0x500000, STACK, STACK, stack).ips()).as("the same sample's second replay").containsExactly(0x500000L, 0x500010L);
        memo.forget();
        assertThat(replay.unwind(0x500000, STACK, STACK, stack).ips()).as("the next sample").containsExactly(0x500000L, 0x500010L, 0x600020L);
    }
}
