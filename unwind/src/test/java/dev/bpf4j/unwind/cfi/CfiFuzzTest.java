package dev.bpf4j.unwind.cfi;

import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfKind;
import dev.bpf4j.elf.ElfSection;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * libc's {@code .eh_frame} and {@code .eh_frame_hdr} with a few bytes changed at random: every
 * lookup and a full scan must end with rows or a {@link CfiFormatException}, never another
 * exception or a hang. Seeded; the seed is in every failure message.
 */
class CfiFuzzTest {
    @Test
    void mutatedLibcCfiFailsCleanly() throws IOException {
        ElfFile elf = ElfFile.parse(Files.readAllBytes(CfiReadelfTest.libc()), ElfKind.NATIVE_X86_64);
        ElfSection ehs = elf.section(".eh_frame").orElseThrow(), hdrs = elf.section(".eh_frame_hdr").orElseThrow();
        byte[] eh = elf.data(ehs), hdr = elf.data(hdrs);
        List<Fde> fdes = ModuleCfi.of("libc", eh, ehs.addr(), hdr, hdrs.addr()).ehFrame().fdes();
        long seed = Long.getLong("bpf4j.fuzz.seed", System.nanoTime());
        Random rnd = new Random(seed);
        int errors = 0, rows = 0;
        for (int iter = 0; iter < 60; iter++) {
            byte[] e = eh.clone(), h = hdr.clone();
            int n = 1 + rnd.nextInt(8);
            for (int i = 0; i < n; i++) {
                byte[] target = rnd.nextInt(5) == 0 ? h : e;
                // Mostly near the start, where the CIEs and the first FDEs are; sometimes anywhere.
                int at = rnd.nextBoolean() ? rnd.nextInt(Math.min(target.length, 512)) : rnd.nextInt(target.length);
                target[at] = (byte) (rnd.nextInt(4) == 0 ? 0xff : rnd.nextInt(256));
            }
            String where = "seed " + seed + " iteration " + iter;
            ModuleCfi m;
            try {
                m = ModuleCfi.of("libc", e, ehs.addr(), h, hdrs.addr());
            } catch (CfiFormatException ok) {
                errors++;
                m = ModuleCfi.of("libc", e, ehs.addr(), null, 0);
            } catch (RuntimeException bug) {
                throw new AssertionError(where + ": " + bug, bug);
            }
            for (int k = 0; k < 200; k++) {
                Fde f = fdes.get(rnd.nextInt(fdes.size()));
                long pc = f.pcBegin() + (f.pcRange() == 0 ? 0 : rnd.nextLong(f.pcRange() + 8));
                try {
                    m.rowFor(pc).ifPresent(r -> assertThat(Long.compareUnsigned(r.pc(), r.pcEnd())).as(where).isNegative());
                    rows++;
                } catch (CfiFormatException ok) {
                    errors++;
                } catch (RuntimeException bug) {
                    throw new AssertionError(where + " pc 0x" + Long.toHexString(pc) + ": " + bug, bug);
                }
            }
            if (iter % 3 != 0) continue;   // a full scan costs as much as thousands of lookups
            try {
                ModuleCfi scanned = m;
                m.ehFrame().forEachFde(f -> CfaInterpreter.rows(scanned.ehFrame(), f));
            } catch (CfiFormatException ok) {
                errors++;
            } catch (RuntimeException bug) {
                throw new AssertionError(where + " (scan): " + bug, bug);
            }
        }
        System.out.printf("CFI fuzz seed %d: %d lookups with a row or none, %d clean errors%n", seed, rows, errors);
        assertThat(errors).as("mutations must hit something").isPositive();
    }
}
