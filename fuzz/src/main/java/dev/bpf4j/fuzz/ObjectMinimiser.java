package dev.bpf4j.fuzz;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * Shrinks a mutated object towards the object it came from: the bytes where the two differ are put back
 * to the original in ever smaller groups (delta debugging) while the mutant still shows the finding, so
 * what remains is the few changed bytes that matter. A truncation is kept as it is (length is not shrunk).
 */
public final class ObjectMinimiser {
    private final Predicate<byte[]> stillFails;
    private final int maxTries;

    public ObjectMinimiser(Predicate<byte[]> stillFails, int maxTries) {
        this.stillFails = stillFails;
        this.maxTries = maxTries;
    }

    public byte[] minimise(byte[] original, byte[] mutant) {
        List<Integer> changed = new ArrayList<>();
        for (int i = 0; i < Math.min(original.length, mutant.length); i++) if (original[i] != mutant[i]) changed.add(i);
        int tries = 0;
        int chunk = Math.max(1, changed.size() / 2);
        while (chunk >= 1 && tries < maxTries) {
            boolean progress = false;
            for (int start = 0; start < changed.size() && tries < maxTries; ) {
                List<Integer> keep = new ArrayList<>(changed.subList(0, start));
                keep.addAll(changed.subList(Math.min(changed.size(), start + chunk), changed.size()));
                tries++;
                if (stillFails.test(build(original, mutant, keep))) {
                    changed = keep;
                    progress = true;
                } else {
                    start += chunk;
                }
            }
            if (!progress) chunk /= 2;
        }
        return build(original, mutant, changed);
    }

    /** The original, at the mutant's length, with the mutant's bytes at {@code positions}. */
    private static byte[] build(byte[] original, byte[] mutant, List<Integer> positions) {
        byte[] out = Arrays.copyOf(original, mutant.length);
        for (int i = original.length; i < mutant.length; i++) out[i] = mutant[i];
        for (int p : positions) out[p] = mutant[p];
        return out;
    }
}
