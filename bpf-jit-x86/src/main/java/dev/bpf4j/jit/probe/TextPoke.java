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
 * <p>What this does not cover, as the kernel's optprobes do not with text_poke_bp alone: a thread
 * that was stopped <em>inside</em> several displaced instructions (after the first one, before
 * the fifth byte) when the tail is written resumes in the middle of the new {@code call}. Linux
 * waits for such tasks with {@code synchronize_rcu_tasks()}; a process cannot see where its other
 * threads are stopped. A one-instruction site (the 5-byte nop) has no such window.
 */
final class TextPoke {
    private TextPoke() {}

    static final byte INT3 = (byte) 0xcc;

    /**
     * Replaces the 5 bytes at {@code site} by {@code next}; a thread that traps meanwhile continues at
     * {@code target} ({@code call}: as if it had called it).
     */
    static void poke(long site, byte[] next, long target, boolean call) {
        if (next.length != PatchSite.LENGTH) throw new IllegalArgumentException("a patch is " + PatchSite.LENGTH + " bytes");
        TrapHandler.emulate(site, target, call);
        CoreSync.sync();                                      // every thread sees the table entry before the int3
        ProcessText.write(site, new byte[]{INT3});
        CoreSync.sync();
        ProcessText.write(site + 1, Arrays.copyOfRange(next, 1, PatchSite.LENGTH));
        CoreSync.sync();
        ProcessText.write(site, new byte[]{next[0]});
        CoreSync.sync();
    }
}
