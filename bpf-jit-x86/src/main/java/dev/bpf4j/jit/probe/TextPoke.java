package dev.bpf4j.jit.probe;

import java.util.Arrays;

/**
 * Rewrites the 5 bytes of a patch site while other threads may run them, with the protocol of
 * Linux's {@code text_poke_bp()}: register what a thread meeting the breakpoint must do
 * ({@link TrapHandler}), write {@code int3} on the first byte, sync all cores ({@link CoreSync}),
 * write the four tail bytes, sync, write the new first byte, sync. At every instant a thread
 * fetching the site sees either the old instruction, the int3 (and is moved on as the new
 * instruction would move it), or the new instruction — never a mix of old and new bytes.
 *
 * <p>text_poke_bp alone covers replacing one instruction by one. When the call displaces several
 * instructions, a thread already past the first one (running, or preempted there) when the tail is
 * written would resume in the middle of the call: Linux's optprobes wait for such tasks with
 * {@code synchronize_rcu_tasks()}; here {@link ThreadMoves} signals every thread and moves those at
 * an inner boundary to the displaced copy, before the tail is written.
 */
final class TextPoke {
    private TextPoke() {}

    static final byte INT3 = (byte) 0xcc;

    /**
     * Replaces the 5 bytes at {@code site} by {@code next}; a thread that traps meanwhile continues at
     * {@code target} ({@code call}: as if it had called it).
     */
    static void poke(long site, byte[] next, long target, boolean call) {
        poke(site, next, target, call, new long[0], new long[0]);
    }

    /**
     * As {@link #poke(long, byte[], long, boolean)}; with the int3 in place, first moves any thread
     * at {@code from[k]} (a boundary inside instructions being displaced) to {@code to[k]}
     * ({@link ThreadMoves}). When a thread does not answer, the original first byte is put back
     * and the patch refused.
     */
    static void poke(long site, byte[] next, long target, boolean call, long[] from, long[] to) {
        if (next.length != PatchSite.LENGTH) throw new IllegalArgumentException("a patch is " + PatchSite.LENGTH + " bytes");
        byte first = ProcessText.read(site, 1)[0];
        TrapHandler.emulate(site, target, call);
        CoreSync.sync();                                      // every thread sees the table entry before the int3
        ProcessText.write(site, new byte[]{INT3});
        CoreSync.sync();
        if (from.length > 0 && !ThreadMoves.run(from, to)) {
            String pending = ThreadMoves.pending();
            ProcessText.write(site, new byte[]{first});
            CoreSync.sync();
            throw new IllegalStateException(String.format("cannot patch 0x%x: a thread did not answer the move signal within %d ms; move signal pending in:%s",
                    site, ThreadMoves.TIMEOUT_NANOS / 1_000_000, pending));
        }
        ProcessText.write(site + 1, Arrays.copyOfRange(next, 1, PatchSite.LENGTH));
        CoreSync.sync();
        ProcessText.write(site, new byte[]{next[0]});
        CoreSync.sync();
    }
}
