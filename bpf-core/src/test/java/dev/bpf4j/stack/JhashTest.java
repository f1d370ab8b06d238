package dev.bpf4j.stack;

import dev.bpf4j.unwind.ExternalTool;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * jhash2 against the C of include/linux/jhash.h (the kernel's macros, compiled with gcc at test
 * time, u32 arithmetic as C does it), plus vectors worked out by hand.
 */
class JhashTest {
    /** The kernel's jhash2 with its macros, as a filter: "initval n w0 .. wn-1" per line -> hash. */
    private static final String C = String.join("\n",
            "#include <stdio.h>",
            "#include <stdint.h>",
            "typedef uint32_t u32;",
            "static inline u32 rol32(u32 word, unsigned int shift) { return (word << (shift & 31)) | (word >> ((-shift) & 31)); }",
            "#define __jhash_mix(a, b, c) { \\",
            "  a -= c;  a ^= rol32(c, 4);  c += b; \\",
            "  b -= a;  b ^= rol32(a, 6);  a += c; \\",
            "  c -= b;  c ^= rol32(b, 8);  b += a; \\",
            "  a -= c;  a ^= rol32(c, 16); c += b; \\",
            "  b -= a;  b ^= rol32(a, 19); a += c; \\",
            "  c -= b;  c ^= rol32(b, 4);  b += a; }",
            "#define __jhash_final(a, b, c) { \\",
            "  c ^= b; c -= rol32(b, 14); \\",
            "  a ^= c; a -= rol32(c, 11); \\",
            "  b ^= a; b -= rol32(a, 25); \\",
            "  c ^= b; c -= rol32(b, 16); \\",
            "  a ^= c; a -= rol32(c, 4);  \\",
            "  b ^= a; b -= rol32(a, 14); \\",
            "  c ^= b; c -= rol32(b, 24); }",
            "#define JHASH_INITVAL 0xdeadbeef",
            "static inline u32 jhash2(const u32 *k, u32 length, u32 initval) {",
            "  u32 a, b, c;",
            "  a = b = c = JHASH_INITVAL + (length<<2) + initval;",
            "  while (length > 3) { a += k[0]; b += k[1]; c += k[2]; __jhash_mix(a, b, c); length -= 3; k += 3; }",
            "  switch (length) {",
            "  case 3: c += k[2]; /* fall through */",
            "  case 2: b += k[1]; /* fall through */",
            "  case 1: a += k[0]; __jhash_final(a, b, c); break;",
            "  case 0: break;",
            "  }",
            "  return c;",
            "}",
            "int main(void) {",
            "  u32 init, n, k[256];",
            "  while (scanf(\"%u %u\", &init, &n) == 2) {",
            "    for (u32 i = 0; i < n; i++) scanf(\"%u\", &k[i]);",
            "    printf(\"%u\\n\", jhash2(k, n, init));",
            "  }",
            "  return 0;",
            "}", "");

    @Test
    void emptyKeyIsTheInitialState() {
        // length 0: a = b = c = 0xdeadbeef + 0 + initval, no final mixing.
        assertThat(Jhash.jhash2(new int[0], 0, 0)).isEqualTo(0xdeadbeef);
        assertThat(Jhash.jhash2(new int[0], 0, 1)).isEqualTo(0xdeadbef0);
    }

    @Test
    void oneZeroWordByHand() {
        // a = b = c = 0xdeadbeef + 4 = 0xdeadbef3; a += 0; then __jhash_final, computed step by step in u32:
        int a = 0xdeadbef3, b = a, c = a;
        c ^= b; c -= Integer.rotateLeft(b, 14);
        a ^= c; a -= Integer.rotateLeft(c, 11);
        b ^= a; b -= Integer.rotateLeft(a, 25);
        c ^= b; c -= Integer.rotateLeft(b, 16);
        a ^= c; a -= Integer.rotateLeft(c, 4);
        b ^= a; b -= Integer.rotateLeft(a, 14);
        c ^= b; c -= Integer.rotateLeft(b, 24);
        assertThat(Jhash.jhash2(new int[] {0}, 1, 0)).isEqualTo(c);
        // first step by hand: c = 0 - rol32(0xdeadbef3, 14) = -(0x6fbcf7ab) = 0x90430855
        assertThat(0 - Integer.rotateLeft(0xdeadbef3, 14)).isEqualTo(0x90430855);
    }

    @Test
    void ipsAreHashedAsLittleEndianU32PairsLowWordFirst() {
        long[] ips = {0x1122334455667788L, 0xffffffff00000001L};
        int[] words = {0x55667788, 0x11223344, 0x00000001, 0xffffffff};
        assertThat(Jhash.hashIps(ips, 0, 2)).isEqualTo(Jhash.jhash2(words, 4, 0));
        assertThat(Jhash.hashIps(ips, 1, 1)).isEqualTo(Jhash.jhash2(new int[] {1, -1}, 2, 0));
    }

    @Test
    void matchesTheKernelCCompiledWithGcc() throws Exception {
        Assumptions.assumeTrue(ExternalTool.available("gcc"), "gcc is not installed: skipping the C comparison");
        Path dir = Files.createTempDirectory("bpf4j-jhash-");
        Path src = dir.resolve("jhash.c"), exe = dir.resolve("jhash");
        Files.writeString(src, C);
        ExternalTool.run(List.of("gcc", "-O2", "-o", exe.toString(), src.toString()), null);
        long seed = new Random().nextLong();
        Random rnd = new Random(seed);
        List<int[]> keys = new ArrayList<>();
        List<Integer> inits = new ArrayList<>();
        StringBuilder in = new StringBuilder();
        for (int t = 0; t < 400; t++) {
            int n = t < 60 ? t % 30 : rnd.nextInt(255);
            int[] k = new int[n];
            for (int i = 0; i < n; i++) k[i] = t % 7 == 0 ? (i == 0 ? -1 : 0) : rnd.nextInt();
            int init = t % 3 == 0 ? 0 : rnd.nextInt();
            keys.add(k);
            inits.add(init);
            in.append(Integer.toUnsignedString(init)).append(' ').append(n);
            for (int w : k) in.append(' ').append(Integer.toUnsignedString(w));
            in.append('\n');
        }
        String[] out = ExternalTool.run(List.of(exe.toString()), in.toString()).trim().split("\n");
        assertThat(out).hasSize(keys.size());
        for (int t = 0; t < keys.size(); t++) {
            assertThat(Jhash.jhash2(keys.get(t), keys.get(t).length, inits.get(t)))
                    .as("seed %d, key #%d (%d words)", seed, t, keys.get(t).length)
                    .isEqualTo(Integer.parseUnsignedInt(out[t]));
        }
        for (Path p : List.of(exe, src, dir)) Files.deleteIfExists(p);
    }
}
