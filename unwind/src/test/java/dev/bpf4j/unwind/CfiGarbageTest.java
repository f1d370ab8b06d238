package dev.bpf4j.unwind;

import dev.bpf4j.unwind.cfi.Fde;
import dev.bpf4j.unwind.cfi.ModuleCfi;
import com.kenai.jffi.Library;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CFI walk over garbage: random pcs inside libc's functions, random stack words (some of them
 * libc return addresses, some pointers back into the stack), random sp and bp. Every walk ends
 * within 127 ips, reads only inside its view and never throws. Seeded.
 */
class CfiGarbageTest {
    @Test
    void randomStacksThroughLibcEndCleanly() {
        ProcessCode code = ProcessCode.global();
        long getpid = Library.getDefault().getSymbolAddress("getpid");
        ProcessCode.NativeMapping libc = code.nativeMapping(getpid).orElseThrow();
        ModuleCfi cfi = libc.module().cfi();
        assertThat(cfi.present()).isTrue();
        List<Fde> fdes = cfi.ehFrame().fdes();
        long bias = libc.bias();
        Unwinder unwinder = new Unwinder(code);
        long seed = Long.getLong("bpf4j.fuzz.seed", System.nanoTime());
        Random r = new Random(seed);
        long base = 0x7ff0_0000_0000L;
        int longest = 0;
        for (int iter = 0; iter < 2000; iter++) {
            int words = 8 + r.nextInt(512);
            ByteBuffer b = ByteBuffer.allocate(words * 8).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < words; i++) {
                long w = switch (r.nextInt(4)) {
                    case 0 -> { Fde f = fdes.get(r.nextInt(fdes.size())); yield bias + f.pcBegin() + (f.pcRange() > 0 ? r.nextLong(f.pcRange()) : 0) + 1; }
                    case 1 -> base + 8L * r.nextInt(words + 4);
                    case 2 -> 0;
                    default -> r.nextLong();
                };
                b.putLong(w);
            }
            SnapshotMemoryView stack = new SnapshotMemoryView(base, b.array());
            MemoryView checked = new MemoryView() {
                @Override public boolean contains(long a) { return stack.contains(a); }
                @Override public long readLong(long a) {
                    if (!stack.contains(a)) throw new AssertionError("seed " + seed + ": read outside the view at 0x" + Long.toHexString(a));
                    return stack.readLong(a);
                }
            };
            Fde f = fdes.get(r.nextInt(fdes.size()));
            long ip = bias + f.pcBegin() + (f.pcRange() > 0 ? r.nextLong(f.pcRange()) : 0);
            long sp = base + 8L * r.nextInt(words), bp = r.nextBoolean() ? base + 8L * r.nextInt(words) : r.nextLong();
            StackTrace t = unwinder.unwind(ip, sp, bp, checked);
            assertThat(t.depth()).as("seed %d", seed).isBetween(1, Unwinder.MAX_DEPTH);
            longest = Math.max(longest, t.depth());
        }
        assertThat(longest).as("seed %d: some garbage chains are followed", seed).isGreaterThan(1);
    }
}
