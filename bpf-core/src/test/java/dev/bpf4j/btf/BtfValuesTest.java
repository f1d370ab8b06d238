package dev.bpf4j.btf;

import dev.bpf4j.elf.ByteView;
import dev.bpf4j.elf.StringTable;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.Fixtures;
import dev.bpf4j.runtime.BpfException;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Decoding and encoding by the BTF of corpus/btf_values.o (clang-14) and of hand-made types clang-14 cannot emit. */
class BtfValuesTest {
    static final BpfObjectSpec SPEC = BpfObjectSpec.read(Fixtures.DIR.resolve("corpus").resolve("btf_values.o"));
    static final Btf BTF = SPEC.btf();
    static final int KEY = SPEC.map("flows").keyTypeId(), STATS = SPEC.map("flows").valueTypeId();

    record FlowKey(int addr, short port, byte proto, byte pad) {}

    enum Level { LEVEL_LOW, LEVEL_MID, LEVEL_HIGH }

    enum Proto { PROTO_TCP, PROTO_UDP, PROTO_HIGH }

    record U(int word, byte[] b) {}

    record Stats(long packets, long bytes, int flags, int kind, int delta, Level lvl, String name, U u, int lo, int hi,
                 Proto pr, boolean seen, byte tiny, int[] ports) {}

    static Map<String, Object> stats() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("packets", 5L);
        m.put("bytes", 4_000_000_000L);
        m.put("flags", 7);
        m.put("kind", 31);
        m.put("delta", -2048);
        m.put("lvl", "LEVEL_LOW");
        m.put("name", "hello");
        m.put("u", Map.of("word", 0x01020304));
        m.put("lo", 80);
        m.put("hi", 65535);
        m.put("pr", Proto.PROTO_HIGH);
        m.put("seen", true);
        m.put("tiny", -5);
        m.put("ports", List.of(80, 443));
        return m;
    }

    @Test void structWithBitfieldsUnionAnonymousMemberAndEnumsRoundTrips() {
        byte[] b = BtfValues.encode(BTF, STATS, stats(), "value");
        assertThat(b).hasSize(48);
        BtfValue v = BtfValues.decode(BTF, STATS, b, 0);
        assertThat(v.get("packets").asLong()).isEqualTo(5);
        assertThat(v.get("bytes").asLong()).isEqualTo(4_000_000_000L);
        assertThat(v.get("flags")).isEqualTo(new BtfValue.Int(BigInteger.valueOf(7), 3, false, true));
        assertThat(v.get("kind").asLong()).isEqualTo(31);
        assertThat(v.get("delta")).isEqualTo(new BtfValue.Int(BigInteger.valueOf(-2048), 12, true, true));
        assertThat(((BtfValue.Enum) v.get("lvl")).name()).isEqualTo("LEVEL_LOW"); // -1 in a 2-bit bitfield
        assertThat(v.get("name")).isEqualTo(new BtfValue.Str("hello", 8));
        assertThat(v.get("u").get("word").asLong()).isEqualTo(0x01020304);
        assertThat(v.get("u").get("b").get(0).asLong()).isEqualTo(4);
        assertThat(v.get("lo").asLong()).isEqualTo(80); // through the anonymous struct
        assertThat(v.get("hi").asLong()).isEqualTo(65535);
        assertThat(v.get("pr")).isEqualTo(new BtfValue.Enum("PROTO_HIGH", 0x80000000L, 32, false, false));
        assertThat(v.get("seen")).isEqualTo(new BtfValue.Bool(true));
        assertThat(v.get("tiny").asLong()).isEqualTo(-5);
        assertThat(v.get("ports").get(1).asLong()).isEqualTo(443);
        // bitfields share bytes: each keeps its neighbours (flags|kind<<3 = 0xff, then delta's low 8 bits)
        assertThat(b[12] & 0xff).isEqualTo(0xff);
        assertThat(b[13] & 0xff).isEqualTo(0x00);
        // re-encoding the decoded tree gives the same bytes (the union's two views agree)
        assertThat(BtfValues.encode(BTF, STATS, v, "value")).isEqualTo(b);
        assertThat(BtfJson.write(v)).isEqualTo("{\"packets\": 5, \"bytes\": 4000000000, \"flags\": \"0x7\", \"kind\": \"0x1f\", "
                + "\"delta\": \"0x800\", \"lvl\": \"0x3\", \"name\": \"hello\", \"u\": {\"word\": 16909060, \"b\": [4, 3, 2, 1]}, "
                + "\"\": {\"lo\": 80, \"hi\": 65535}, \"pr\": \"PROTO_HIGH\", \"seen\": true, \"tiny\": -5, \"ports\": [80, 443]}");
    }

    @Test void recordsMatchMembersByName() {
        byte[] b = BtfValues.encode(BTF, STATS, stats(), "value");
        BtfRecords.check(BTF, STATS, Stats.class, "value");
        Stats s = BtfRecords.convert(BtfValues.decode(BTF, STATS, b, 0), Stats.class, "value");
        assertThat(s.bytes()).isEqualTo(4_000_000_000L);
        assertThat(s.delta()).isEqualTo(-2048);
        assertThat(s.lvl()).isEqualTo(Level.LEVEL_LOW);
        assertThat(s.name()).isEqualTo("hello");
        assertThat(s.u().b()).containsExactly(4, 3, 2, 1);
        assertThat(s.ports()).containsExactly(80, 443);
        assertThat(s.pr()).isEqualTo(Proto.PROTO_HIGH);
        assertThat(BtfValues.encode(BTF, STATS, s, "value")).isEqualTo(b);
        // a u16 in a Java short keeps its bit pattern both ways
        FlowKey k = new FlowKey(-1, (short) 0xffff, (byte) 200, (byte) 0);
        byte[] kb = BtfValues.encode(BTF, KEY, k, "key");
        assertThat(BtfValues.decode(BTF, KEY, kb, 0).get("port").asLong()).isEqualTo(0xffff);
        assertThat(BtfRecords.convert(BtfValues.decode(BTF, KEY, kb, 0), FlowKey.class, "key")).isEqualTo(k);
    }

    record MissingMember(int addr, short port, byte proto) {}

    record ExtraComponent(int addr, short port, byte proto, byte pad, int nope) {}

    @Test void recordsThatDoNotMatchAreRefusedByName() {
        assertThatThrownBy(() -> BtfRecords.check(BTF, KEY, MissingMember.class, "map 'flows' key")).isInstanceOf(BpfException.class)
                .hasMessageContaining("no component for member(s) [pad]");
        assertThatThrownBy(() -> BtfRecords.check(BTF, KEY, ExtraComponent.class, "map 'flows' key"))
                .hasMessageContaining("no member for component(s) [nope]");
        assertThatThrownBy(() -> BtfRecords.check(BTF, SPEC.map("pcpu").keyTypeId(), FlowKey.class, "k"))
                .hasMessageContaining("needs a struct or union, the type is __u32");
    }

    @Test void valuesThatDoNotFitAreClearErrors() {
        Map<String, Object> s = stats();
        s.put("flags", 8);
        assertThatThrownBy(() -> BtfValues.encode(BTF, STATS, s, "map 'flows' value")).isInstanceOf(BpfException.class)
                .hasMessage("map 'flows' value.flags: 8 does not fit __u32 bitfield of 3 bits (0..7)");
        s.put("flags", 1);
        s.put("delta", 2048);
        assertThatThrownBy(() -> BtfValues.encode(BTF, STATS, s, "v")).hasMessageContaining("v.delta: 2048 does not fit __s32 bitfield of 12 bits (-2048..2047)");
        s.put("delta", 0);
        s.put("bytes", 1L << 40);
        assertThatThrownBy(() -> BtfValues.encode(BTF, STATS, s, "v")).hasMessage("v.bytes: 1099511627776 does not fit __u32 (0..4294967295)");
        s.put("bytes", -1L); // a long is 64 bits: -1 is not a u32
        assertThatThrownBy(() -> BtfValues.encode(BTF, STATS, s, "v")).hasMessageContaining("-1 does not fit __u32");
        s.put("bytes", -1); // an int is 32 bits: its bit pattern
        assertThat(BtfValues.decode(BTF, STATS, BtfValues.encode(BTF, STATS, s, "v"), 0).get("bytes").asLong()).isEqualTo(0xffffffffL);
        s.put("name", "123456789");
        assertThatThrownBy(() -> BtfValues.encode(BTF, STATS, s, "v")).hasMessageContaining("v.name: char[8] holds 8 bytes, 9 given");
        s.put("name", "x");
        s.put("pr", "PROTO_SCTP");
        assertThatThrownBy(() -> BtfValues.encode(BTF, STATS, s, "v")).hasMessageContaining("enum proto has no enumerator 'PROTO_SCTP'");
        s.put("pr", 6);
        s.put("ports", List.of(1));
        assertThatThrownBy(() -> BtfValues.encode(BTF, STATS, s, "v")).hasMessageContaining("v.ports: port_t[2] has 2 elements, 1 given");
        s.put("ports", List.of(1, 70000));
        assertThatThrownBy(() -> BtfValues.encode(BTF, STATS, s, "v")).hasMessageContaining("v.ports[1]: 70000 does not fit port_t (0..65535)");
        s.put("ports", List.of(1, 2));
        s.put("nope", 1);
        assertThatThrownBy(() -> BtfValues.encode(BTF, STATS, s, "v")).hasMessageContaining("struct flow_stats has no member [nope]");
        s.remove("nope");
        s.put("u", Map.of("word", 1, "b", List.of(2, 0, 0, 0)));
        assertThatThrownBy(() -> BtfValues.encode(BTF, STATS, s, "v")).hasMessageContaining("members [word] and 'b' give different bytes");
        s.put("u", Map.of("word", 2, "b", new byte[] {2, 0, 0, 0}));
        assertThat(BtfValues.encode(BTF, STATS, s, "v")).hasSize(48);
        s.put("seen", "yes");
        assertThatThrownBy(() -> BtfValues.encode(BTF, STATS, s, "v")).hasMessageContaining("v.seen: _Bool needs an integer, not String yes");
        assertThatThrownBy(() -> BtfValues.decode(BTF, STATS, new byte[47], 0)).hasMessageContaining("struct flow_stats is 48 bytes, 47 given");
        assertThatThrownBy(() -> BtfValues.encode(BTF, STATS, null, "v")).hasMessageContaining("null given");
    }

    @Test void charArraysThatAreNotStringsDecodeAsArrays() {
        byte[] b = BtfValues.encode(BTF, STATS, stats(), "value");
        for (int i = 0; i < 8; i++) b[16 + i] = 'a'; // no NUL: not a string for bpftool
        assertThat(BtfValues.decode(BTF, STATS, b, 0).get("name")).isInstanceOf(BtfValue.Array.class);
        b[16] = 1;
        b[17] = 0;
        assertThat(BtfValues.decode(BTF, STATS, b, 0).get("name")).isInstanceOf(BtfValue.Array.class);
    }

    /**
     * Random bytes decode and re-encode to the same bytes, except what the tree does not keep: padding
     * (bits 118..119, byte 23, bytes 42..47) and the bytes after a string's NUL.
     */
    @Test void randomBytesRoundTrip() {
        long seed = System.nanoTime();
        Random r = new Random(seed);
        for (int i = 0; i < 2000; i++) {
            byte[] b = new byte[48];
            r.nextBytes(b);
            if (i % 2 == 0) b[15 + r.nextInt(8)] = 0; // often a string in name (printable bytes up to a NUL)
            if (i % 4 == 0) for (int j = 15; j < 23 && b[j] != 0; j++) b[j] = (byte) ('a' + (b[j] & 15));
            b[36] &= 1; // _Bool: any non-zero byte reads as true; only 0 and 1 round-trip
            BtfValue v = BtfValues.decode(BTF, STATS, b, 0);
            byte[] again = BtfValues.encode(BTF, STATS, v, "v");
            b[14] &= 0x3f;
            b[23] = 0;
            java.util.Arrays.fill(b, 42, 48, (byte) 0);
            if (v.get("name") instanceof BtfValue.Str str) java.util.Arrays.fill(b, 15 + str.text().length(), 23, (byte) 0);
            assertThat(again).as("seed %d", seed).isEqualTo(b);
        }
    }

    // hand-made BTF: ENUM64 (clang 15+), signed enums, 128-bit integers
    private static Btf handMade(BtfType... types) {
        java.util.List<BtfType> all = new java.util.ArrayList<>();
        all.add(new BtfType.Void());
        all.addAll(List.of(types));
        return new Btf(all, new StringTable(ByteView.of(new byte[] {0}, "strings")));
    }

    @Test void enum64SignedEnumsAnd128BitIntegers() {
        Btf btf = handMade(new BtfType.Enum("big", true, false, 8, List.of(new BtfType.EnumValue("TOP", 0x8000_0000_0000_0000L))),
                new BtfType.Enum("sgn", false, true, 1, List.of(new BtfType.EnumValue("NEG", -2))),
                new BtfType.Int("unsigned __int128", 16, 0, 0, 128));
        byte[] b = BtfValues.encode(btf, 1, "TOP", "v");
        assertThat(BtfValues.decode(btf, 1, b, 0)).isEqualTo(new BtfValue.Enum("TOP", 0x8000_0000_0000_0000L, 64, false, false));
        assertThat(BtfValues.decode(btf, 1, BtfValues.encode(btf, 1, 5L, "v"), 0).toString()).isEqualTo("5");
        assertThat(BtfJson.write(BtfValues.decode(btf, 1, BtfValues.encode(btf, 1, -1L, "v"), 0))).isEqualTo("-1");
        assertThat(BtfValues.decode(btf, 2, new byte[] {(byte) 0xfe}, 0)).isEqualTo(new BtfValue.Enum("NEG", -2, 8, true, false));
        assertThatThrownBy(() -> BtfValues.encode(btf, 2, 200, "v")).hasMessageContaining("200 does not fit enum sgn (-128..127)");
        BigInteger max = BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE);
        byte[] i128 = BtfValues.encode(btf, 3, max, "v");
        assertThat(BtfValues.decode(btf, 3, i128, 0)).isEqualTo(new BtfValue.Int(max, 128, false, false));
        assertThat(BtfJson.write(BtfValues.decode(btf, 3, i128, 0))).isEqualTo("\"0x" + "f".repeat(32) + "\"");
        assertThatThrownBy(() -> BtfValues.encode(btf, 3, max.add(BigInteger.ONE), "v")).hasMessageContaining("does not fit unsigned __int128");
    }

    @Test void typeCyclesAndTypesWithoutValuesAreErrorsNotCrashes() {
        Btf btf = handMade(new BtfType.Ref(BtfKind.TYPEDEF, "a", 2), new BtfType.Ref(BtfKind.TYPEDEF, "b", 1),
                new BtfType.FuncProto(0, List.of()), new BtfType.Array(5, 5, 1), new BtfType.Composite("s", false, 4, List.of(
                        new BtfType.Member("self", 5, 0, 0))));
        assertThatThrownBy(() -> BtfValues.decode(btf, 1, new byte[8], 0)).isInstanceOf(BpfException.class).hasMessageContaining("deeper than");
        assertThatThrownBy(() -> BtfValues.encode(btf, 1, 1, "v")).isInstanceOf(BpfException.class);
        assertThatThrownBy(() -> BtfValues.decode(btf, 3, new byte[8], 0)).isInstanceOf(BpfException.class);
        assertThatThrownBy(() -> BtfValues.decode(btf, 5, new byte[8], 0)).isInstanceOf(BpfException.class);
        Object nested = Map.of();
        for (int i = 0; i < 1000; i++) nested = Map.of("self", nested);
        Object deep = nested;
        assertThatThrownBy(() -> BtfValues.encode(btf, 5, deep, "v")).isInstanceOf(BpfException.class).hasMessageContaining("nests too deep");
    }

    @Test void globalDataDecodesAsItsSection() {
        var bss = SPEC.maps().stream().filter(m -> m.section().equals(".bss")).findFirst().orElseThrow();
        BtfValue v = BtfValues.decode(BTF, bss.valueTypeId(), bss.contents(), 0);
        assertThat(v).isInstanceOf(BtfValue.Section.class);
        assertThat(v.get("total").asLong()).isZero();
        assertThat(BtfJson.write(v)).startsWith("{\".bss\": [{\"total\": 0}, {\"over_limit\": 0}, {\"big\": \"0x0\"}, {\"last\": {\"packets\": 0,")
                .endsWith("\"ports\": [0, 0]}}]}");
        assertThat(SPEC.variableTyped("label")).isEqualTo(new BtfValue.Str("hello", 12));
        assertThat(SPEC.variableTyped("cfg").get("tag")).isEqualTo(new BtfValue.Str("abc", 6));
        assertThat(SPEC.withVariable("default_proto", "PROTO_TCP").variableTyped("default_proto").asLong()).isEqualTo(6);
        assertThatThrownBy(() -> SPEC.withVariable("limit", 1L << 40)).isInstanceOf(BpfException.class)
                .hasMessage("variable 'limit' (const volatile __u32 in .rodata): 1099511627776 does not fit const volatile __u32 (0..4294967295)");
    }
}
