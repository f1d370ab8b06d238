package dev.bpf4j.object;

import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfSection;
import dev.bpf4j.runtime.LoadPhase;
import dev.bpf4j.runtime.BpfLoadException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Feeds the object parser thousands of mutated fixtures: byte flips (anywhere and inside the
 * headers, symbol/relocation tables and BTF), fields overwritten with boundary values, and
 * truncations. Every input must end in a spec or a {@link BpfLoadException} that is not an
 * "internal error" (a parser bug caught by the safety net), quickly. A failure prints the base
 * seed; {@code -Dbpf4j.fuzz.seed=<base seed>} replays the same inputs, and the mutation applied is
 * listed too. {@code -Dbpf4j.fuzz.cases=N} sets the number of inputs per fixture.
 */
class ObjectParserFuzzTest {
    private static final long BASE_SEED = Long.getLong("bpf4j.fuzz.seed", 0x5eed_b9f_0bL);
    private static final int CASES_PER_FIXTURE = Integer.getInteger("bpf4j.fuzz.cases", 1500);
    private static final long[] INTERESTING = {0, 1, 7, 8, 0x7f, 0xff, 0xffff, 0x7fffffffL, 0x80000000L, 0xffffffffL,
            1L << 32, 1L << 40, Long.MAX_VALUE, -1L, -8L, Long.MIN_VALUE};

    private record Region(long offset, long size) {}

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void mutatedObjectsEndInASpecOrALoadError() {
        int specs = 0, errors = 0;
        for (String fixture : Fixtures.NAMES) {
            byte[] original = Fixtures.bytes(fixture);
            List<Region> regions = interestingRegions(original);
            for (int i = 0; i < CASES_PER_FIXTURE; i++) {
                long seed = BASE_SEED * 31 + fixture.hashCode() * 1_000_003L + i;
                Random rnd = new Random(seed);
                StringBuilder what = new StringBuilder();
                byte[] input = mutate(original, regions, rnd, what);
                long start = System.nanoTime();
                try {
                    BpfObjectSpec spec = BpfObjectSpec.parse(input, fixture + ".o");
                    assertThat(spec.programs()).allSatisfy(p -> assertThat(p.program().length()).isPositive());
                    specs++;
                } catch (BpfLoadException e) {
                    if (e.getMessage().contains(LoadPhase.INTERNAL_ERROR)) {
                        fail("fixture %s case %d (-Dbpf4j.fuzz.seed=%d, case seed %d, %s): parser bug: %s", fixture, i, BASE_SEED, seed, what, e.getMessage(), e);
                    }
                    errors++;
                } catch (Throwable t) {
                    fail("fixture %s case %d (-Dbpf4j.fuzz.seed=%d, case seed %d, %s): %s escaped", fixture, i, BASE_SEED, seed, what, t, t);
                }
                long ms = (System.nanoTime() - start) / 1_000_000;
                if (ms > 2_000) fail("fixture %s case %d (-Dbpf4j.fuzz.seed=%d, case seed %d, %s): took %d ms", fixture, i, BASE_SEED, seed, what, ms);
            }
        }
        // Both outcomes must occur, or the mutations are not reaching the parser.
        assertThat(specs).as("inputs that still parsed").isGreaterThan(100);
        assertThat(errors).as("inputs rejected").isGreaterThan(1000);
    }

    /** The ELF header, the section header table and the symbol, relocation and BTF sections. */
    private static List<Region> interestingRegions(byte[] elfBytes) {
        ElfFile elf = ElfFile.parse(elfBytes);
        List<Region> out = new ArrayList<>();
        out.add(new Region(0, 64));
        long shoff = ByteBuffer.wrap(elfBytes).order(ByteOrder.LITTLE_ENDIAN).getLong(40);
        out.add(new Region(shoff, elf.sections().size() * 64L));
        for (ElfSection s : elf.sections()) {
            boolean wanted = s.type() == ElfSection.SHT_SYMTAB || s.type() == ElfSection.SHT_REL && !s.name().contains("debug")
                    || s.name().startsWith(".BTF") || s.name().equals(".maps") || s.name().equals("maps") || s.isExecutable();
            if (wanted && s.hasFileData() && s.size() > 0) out.add(new Region(s.offset(), s.size()));
        }
        return out;
    }

    private static byte[] mutate(byte[] original, List<Region> regions, Random rnd, StringBuilder what) {
        byte[] b = original.clone();
        int rounds = 1 + rnd.nextInt(3);
        for (int r = 0; r < rounds; r++) {
            Region region = rnd.nextInt(4) == 0 ? new Region(0, b.length) : regions.get(rnd.nextInt(regions.size()));
            switch (rnd.nextInt(5)) {
                case 0: case 1: {
                    int n = 1 + rnd.nextInt(8);
                    for (int k = 0; k < n; k++) {
                        int pos = pos(region, b.length, rnd);
                        b[pos] ^= (byte) (1 + rnd.nextInt(255));
                        what.append("flip@").append(pos).append(' ');
                    }
                    break;
                }
                case 2: {
                    int pos = pos(region, b.length, rnd) & ~3;
                    long v = INTERESTING[rnd.nextInt(INTERESTING.length)];
                    int width = rnd.nextBoolean() ? 4 : 8;
                    if (pos + width > b.length) break;
                    ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
                    if (width == 4) bb.putInt(pos, (int) v); else bb.putLong(pos, v);
                    what.append("set").append(width * 8).append('@').append(pos).append('=').append(v).append(' ');
                    break;
                }
                case 3: {
                    int pos = pos(region, b.length, rnd) & ~3;
                    if (pos + 4 > b.length) break;
                    int v = rnd.nextInt(64) - 8;
                    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(pos, v);
                    what.append("small@").append(pos).append('=').append(v).append(' ');
                    break;
                }
                default: {
                    int len = rnd.nextInt(b.length + 1);
                    b = Arrays.copyOf(b, len);
                    what.append("truncate=").append(len).append(' ');
                    break;
                }
            }
            if (b.length == 0) break;
        }
        return b;
    }

    private static int pos(Region region, int length, Random rnd) {
        if (length == 0) return 0;
        long p = region.offset() + (long) (rnd.nextDouble() * region.size());
        return (int) Math.min(Math.max(p, 0), length - 1);
    }
}
