package dev.bpf4j.unwind;

import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfFormatException;
import dev.bpf4j.elf.ElfKind;
import dev.bpf4j.elf.ElfPhase;
import dev.bpf4j.elf.ElfSection;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Mutated copies of a gcc-built shared object (header, section and program headers, symbol and
 * string tables) end in symbols or an {@link ElfFormatException} that is not a reader bug.
 */
class NativeElfFuzzTest {
    private static final long BASE_SEED = Long.getLong("bpf4j.fuzz.seed", 0xe1f_5eedL);
    private static final long[] INTERESTING = {0, 1, 8, 24, 0xff, 0xffff, 0x7fffffffL, 0xffffffffL, Long.MAX_VALUE, -1L, -8L};

    @Test
    void mutatedSharedObjectsEndInSymbolsOrAFormatError() throws Exception {
        byte[] original = Files.readAllBytes(CallChain.library());
        ElfFile elf = ElfFile.parse(original, ElfKind.NATIVE_X86_64);
        ByteBuffer b = ByteBuffer.wrap(original).order(ByteOrder.LITTLE_ENDIAN);
        List<long[]> regions = new ArrayList<>();
        regions.add(new long[] {0, 64});
        regions.add(new long[] {b.getLong(32), 56L * b.getShort(56)});
        regions.add(new long[] {b.getLong(40), 64L * elf.sections().size()});
        for (ElfSection s : elf.sections()) {
            if (s.type() == ElfSection.SHT_SYMTAB || s.type() == ElfSection.SHT_DYNSYM || s.type() == ElfSection.SHT_STRTAB) {
                regions.add(new long[] {s.offset(), s.size()});
            }
        }
        int parsed = 0, rejected = 0;
        for (int i = 0; i < 1500; i++) {
            long seed = BASE_SEED * 31 + i;
            Random rnd = new Random(seed);
            byte[] input = original.clone();
            ByteBuffer in = ByteBuffer.wrap(input).order(ByteOrder.LITTLE_ENDIAN);
            for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
                long[] r = regions.get(rnd.nextInt(regions.size()));
                if (r[1] < 8) continue;
                int at = (int) (r[0] + rnd.nextInt((int) r[1] - 7));
                if (rnd.nextBoolean()) in.putLong(at, INTERESTING[rnd.nextInt(INTERESTING.length)]);
                else input[at] ^= (byte) (1 << rnd.nextInt(8));
            }
            try {
                FunctionSymbols.of(ElfFile.parse(input, ElfKind.NATIVE_X86_64));
                parsed++;
            } catch (ElfFormatException e) {
                if (e.getMessage().contains(ElfPhase.INTERNAL_ERROR)) fail("case %d (-Dbpf4j.fuzz.seed=%d): reader bug: %s", i, BASE_SEED, e.getMessage(), e);
                rejected++;
            } catch (Throwable t) {
                fail("case %d (-Dbpf4j.fuzz.seed=%d): %s escaped", i, BASE_SEED, t, t);
            }
        }
        assertThat(parsed).isGreaterThan(100);
        assertThat(rejected).isGreaterThan(100);
    }
}
