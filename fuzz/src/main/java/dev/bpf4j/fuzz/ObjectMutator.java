package dev.bpf4j.fuzz;

import dev.bpf4j.fuzz.ElfLayout.Part;
import dev.bpf4j.fuzz.ElfLayout.Region;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Structure-aware mutations of BPF ELF objects: the seed picks an object and one to three mutations —
 * a field of a section header, symbol or relocation set to a boundary or nearby value, a BTF type record's
 * kind, vlen, name, size/type or member words changed, a BTF array length (the BTF map definitions' fields)
 * or a legacy map definition field changed, a {@code .BTF.ext} word changed, an instruction's opcode,
 * registers, offset or immediate changed or two instructions swapped, a section renamed to another program
 * type, a byte of global data or a string changed, bytes flipped anywhere, or the file truncated.
 * Mutant {@code i} depends only on the corpus and the seed.
 */
public final class ObjectMutator {
    /** One mutated object: where it came from (replayable), its bytes, and what was done. */
    public record Mutant(String origin, String seedObject, byte[] bytes, String mutations) {}

    private record Seed(String name, byte[] bytes, ElfLayout layout) {}

    static final long[] INTERESTING = {0, 1, 2, 4, 7, 8, 16, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x7fffffffL, 0x80000000L,
            0xffffffffL, 1L << 32, Long.MAX_VALUE, -1L, -8L, Long.MIN_VALUE};

    /** Section names of other program types (and of special sections), no longer than what they replace. */
    private static final String[] SECTION_NAMES = {"xdp", "tc", "socket", "kprobe/f", "kretprobe/f", "tracepoint/a/b", "raw_tp/x",
            "tp_btf/x", "fentry/f", "perf_event", "syscall", "cgroup_skb/ingress", "lwt_in", "?xdp", "license", "maps", ".maps", ".text",
            ".data", ".rodata", ".bss", "struct_ops/x", "sk_msg", "iter/x"};

    private final List<Seed> seeds = new ArrayList<>();

    public ObjectMutator(List<Path> objects) {
        for (Path p : objects) {
            byte[] b;
            try {
                b = Files.readAllBytes(p);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + p + ": " + e.getMessage(), e);
            }
            try {
                seeds.add(new Seed(p.getFileName().toString(), b, ElfLayout.of(b)));
            } catch (RuntimeException e) {
                // not an ELF object we can lay out: not a seed
            }
        }
        if (seeds.isEmpty()) throw new IllegalArgumentException("no usable ELF object among " + objects.size() + " files");
    }

    public int corpusSize() { return seeds.size(); }

    /** The object of index {@code i} (modulo their number) unchanged. */
    public Mutant original(long i) {
        Seed s = seeds.get((int) Math.floorMod(i, (long) seeds.size()));
        return new Mutant(s.name(), s.name(), s.bytes().clone(), "none");
    }

    /** The unmutated bytes of the seed object of that file name (what {@link ObjectMinimiser} shrinks towards). */
    public byte[] seedBytes(String seedObject) {
        return seeds.stream().filter(s -> s.name().equals(seedObject)).findFirst().orElseThrow().bytes().clone();
    }

    public Mutant mutate(long seed) {
        Random rnd = new Random(seed);
        Seed s = seeds.get(rnd.nextInt(seeds.size()));
        byte[] b = s.bytes().clone();
        StringBuilder what = new StringBuilder();
        int rounds = 1 + rnd.nextInt(3);
        int length = b.length;
        for (int r = 0; r < rounds; r++) {
            if (what.length() > 0) what.append("; ");
            length = Math.min(length, mutateOnce(s, b, rnd, what));
        }
        // a truncation applies last: the layout's offsets hold for the other mutations
        if (length < b.length) b = Arrays.copyOf(b, length);
        return new Mutant("mutate-objects seed " + seed + " of " + s.name(), s.name(), b, what.toString());
    }

    /** Mutates {@code b} in place; returns the length to truncate it to (its length: none). */
    private static int mutateOnce(Seed s, byte[] b, Random rnd, StringBuilder what) {
        ElfLayout l = s.layout();
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        switch (rnd.nextInt(16)) {
            case 0 -> sectionHeader(l, bb, rnd, what);
            case 1 -> symbol(l, bb, rnd, what);
            case 2 -> relocation(l, bb, rnd, what);
            case 3, 4 -> btfRecord(l, bb, rnd, what);
            case 5 -> btfMapField(l, bb, rnd, what);
            case 6 -> word(l, Part.BTF_EXT, bb, rnd, what, "btf.ext");
            case 7, 8 -> instruction(l, bb, rnd, what);
            case 9 -> word(l, Part.MAP_DEFS, bb, rnd, what, "map-def");
            case 10 -> rename(l, b, rnd, what);
            case 11 -> {
                Part p = new Part[] {Part.DATA, Part.STRINGS, Part.BTF_STRINGS, Part.BTF_HEADER}[rnd.nextInt(4)];
                if (p == Part.BTF_HEADER) word(l, p, bb, rnd, what, "btf-header");
                else byteIn(l, p, b, rnd, what);
            }
            case 12 -> word(l, Part.ELF_HEADER, bb, rnd, what, "elf-header");
            case 13 -> {
                int len = rnd.nextInt(b.length + 1);
                what.append("truncate to ").append(len);
                return len;
            }
            default -> flip(b, rnd, what);
        }
        return b.length;
    }

    /** One to four bits flipped anywhere; also what a structured mutation does to an object without that structure. */
    private static void flip(byte[] b, Random rnd, StringBuilder what) {
        int n = 1 + rnd.nextInt(4);
        what.append("flip");
        for (int k = 0; k < n && b.length > 0; k++) {
            int pos = rnd.nextInt(b.length);
            b[pos] ^= (byte) (1 << rnd.nextInt(8));
            what.append(' ').append(pos);
        }
    }

    private static Region region(ElfLayout l, Part p, Random rnd) {
        List<Region> rs = l.regions(p);
        return rs.isEmpty() ? null : rs.get(rnd.nextInt(rs.size()));
    }

    /** A boundary value, a small value or a step from {@code old}. */
    static long value(Random rnd, long old) {
        return switch (rnd.nextInt(4)) {
            case 0, 1 -> INTERESTING[rnd.nextInt(INTERESTING.length)];
            case 2 -> rnd.nextInt(64);
            default -> old + (rnd.nextBoolean() ? 1 : -1) * (1L << rnd.nextInt(4));
        };
    }

    private static void put(ByteBuffer bb, int pos, int width, long v) {
        if (pos < 0 || pos + width > bb.capacity()) return;
        switch (width) {
            case 1 -> bb.put(pos, (byte) v);
            case 2 -> bb.putShort(pos, (short) v);
            case 4 -> bb.putInt(pos, (int) v);
            default -> bb.putLong(pos, v);
        }
    }

    private static long get(ByteBuffer bb, int pos, int width) {
        if (pos < 0 || pos + width > bb.capacity()) return 0;
        return switch (width) {
            case 1 -> Byte.toUnsignedLong(bb.get(pos));
            case 2 -> Short.toUnsignedLong(bb.getShort(pos));
            case 4 -> Integer.toUnsignedLong(bb.getInt(pos));
            default -> bb.getLong(pos);
        };
    }

    /** Sets one field of entry {@code e}: {@code fields[k] = {offset, width}}. */
    private static void field(ByteBuffer bb, int e, int[][] fields, String[] names, Random rnd, StringBuilder what, String kind, int index) {
        int k = rnd.nextInt(fields.length);
        int pos = e + fields[k][0], width = fields[k][1];
        long v = value(rnd, get(bb, pos, width));
        put(bb, pos, width, v);
        what.append(kind).append(' ').append(index).append(' ').append(names[k]).append('=').append(v);
    }

    private static final int[][] SHDR = {{0, 4}, {4, 4}, {8, 8}, {16, 8}, {24, 8}, {32, 8}, {40, 4}, {44, 4}, {48, 8}, {56, 8}};
    private static final String[] SHDR_NAMES = {"sh_name", "sh_type", "sh_flags", "sh_addr", "sh_offset", "sh_size", "sh_link", "sh_info",
            "sh_addralign", "sh_entsize"};

    private static void sectionHeader(ElfLayout l, ByteBuffer bb, Random rnd, StringBuilder what) {
        Region r = region(l, Part.SECTION_HEADERS, rnd);
        int i = rnd.nextInt(r.entries());
        if (rnd.nextInt(4) == 0) { // sh_link / sh_info to another section: the cross references libbpf follows
            int pos = r.entry(i) + (rnd.nextBoolean() ? 40 : 44);
            int v = rnd.nextInt(l.sectionCount() + 2);
            put(bb, pos, 4, v);
            what.append("section ").append(i).append(pos == r.entry(i) + 40 ? " sh_link=" : " sh_info=").append(v);
            return;
        }
        field(bb, r.entry(i), SHDR, SHDR_NAMES, rnd, what, "section", i);
    }

    private static final int[][] SYM = {{0, 4}, {4, 1}, {5, 1}, {6, 2}, {8, 8}, {16, 8}};
    private static final String[] SYM_NAMES = {"st_name", "st_info", "st_other", "st_shndx", "st_value", "st_size"};

    private static void symbol(ElfLayout l, ByteBuffer bb, Random rnd, StringBuilder what) {
        Region r = region(l, Part.SYMBOLS, rnd);
        if (r == null) { what.append("no symbols"); return; }
        int i = rnd.nextInt(r.entries());
        if (rnd.nextInt(3) == 0) {
            int v = rnd.nextInt(l.sectionCount() + 2);
            put(bb, r.entry(i) + 6, 2, v);
            what.append("symbol ").append(i).append(" st_shndx=").append(v);
            return;
        }
        field(bb, r.entry(i), SYM, SYM_NAMES, rnd, what, "symbol", i);
    }

    private static void relocation(ElfLayout l, ByteBuffer bb, Random rnd, StringBuilder what) {
        Region r = region(l, Part.RELOCATIONS, rnd);
        if (r == null) { what.append("no relocations"); return; }
        int i = rnd.nextInt(r.entries());
        int e = r.entry(i);
        switch (rnd.nextInt(3)) {
            case 0 -> { // another instruction, or between two
                long v = get(bb, e, 8) + (rnd.nextBoolean() ? 8L : -8L) * (1 + rnd.nextInt(3)) + (rnd.nextInt(4) == 0 ? 4 : 0);
                put(bb, e, 8, v);
                what.append("relocation ").append(i).append(" r_offset=").append(v);
            }
            case 1 -> {
                int sym = rnd.nextInt(l.symbolCount() + 2);
                put(bb, e + 12, 4, sym);
                what.append("relocation ").append(i).append(" sym=").append(sym);
            }
            default -> {
                int type = rnd.nextInt(12);
                put(bb, e + 8, 4, type);
                what.append("relocation ").append(i).append(" type=").append(type);
            }
        }
    }

    private static void btfRecord(ElfLayout l, ByteBuffer bb, Random rnd, StringBuilder what) {
        List<ElfLayout.BtfRecord> records = l.btfRecords();
        if (records.isEmpty()) { what.append("no BTF"); return; }
        int i = rnd.nextInt(records.size());
        ElfLayout.BtfRecord t = records.get(i);
        int info = bb.getInt(t.offset() + 4);
        String id = "btf type " + (i + 1) + " (kind " + t.kind() + ") ";
        switch (rnd.nextInt(5)) {
            case 0 -> {
                int kind = rnd.nextInt(21);
                bb.putInt(t.offset() + 4, (info & ~(0x1f << 24)) | kind << 24);
                what.append(id).append("kind=").append(kind);
            }
            case 1 -> {
                int vlen = (int) (value(rnd, info & 0xffff) & 0xffff);
                bb.putInt(t.offset() + 4, (info & ~0xffff) | vlen);
                what.append(id).append("vlen=").append(vlen);
            }
            case 2 -> {
                bb.putInt(t.offset() + 4, info ^ 0x80000000);
                what.append(id).append("kflag flipped");
            }
            case 3 -> {
                boolean name = rnd.nextBoolean();
                long v = rnd.nextBoolean() ? rnd.nextInt(records.size() + 3) : value(rnd, bb.getInt(t.offset() + (name ? 0 : 8)));
                bb.putInt(t.offset() + (name ? 0 : 8), (int) v);
                what.append(id).append(name ? "name_off=" : "size/type=").append((int) v);
            }
            default -> {
                if (t.length() == 12) { what.append(id).append("(no members)"); return; }
                int pos = t.offset() + 12 + 4 * rnd.nextInt((t.length() - 12) / 4);
                long v = rnd.nextBoolean() ? rnd.nextInt(records.size() + 3) : value(rnd, bb.getInt(pos));
                bb.putInt(pos, (int) v);
                what.append(id).append("word +").append(pos - t.offset()).append('=').append((int) v);
            }
        }
    }

    /** A BTF array's length: the type, key_size, max_entries... fields of {@code .maps} definitions are array lengths. */
    private static void btfMapField(ElfLayout l, ByteBuffer bb, Random rnd, StringBuilder what) {
        List<ElfLayout.BtfRecord> arrays = l.btfRecords().stream().filter(t -> t.kind() == ElfLayout.BTF_KIND_ARRAY).toList();
        if (arrays.isEmpty()) { word(l, Part.MAP_DEFS, bb, rnd, what, "map-def"); return; }
        ElfLayout.BtfRecord t = arrays.get(rnd.nextInt(arrays.size()));
        long v = value(rnd, bb.getInt(t.offset() + 20));
        bb.putInt(t.offset() + 20, (int) v);
        what.append("btf array at ").append(t.offset()).append(" nelems=").append((int) v);
    }

    /** A 4-byte word of a region (a BTF.ext record, a legacy map definition field, a header field). */
    private static void word(ElfLayout l, Part p, ByteBuffer bb, Random rnd, StringBuilder what, String name) {
        Region r = name == null ? null : region(l, p, rnd);
        if (r == null) { flip(bb.array(), rnd, what); return; }
        int pos = r.offset() + 4 * rnd.nextInt(Math.max(1, r.size() / 4));
        long v = value(rnd, Integer.toUnsignedLong(bb.getInt(pos)));
        put(bb, pos, 4, v);
        what.append(name).append(" @").append(pos).append('=').append((int) v);
    }

    private static void instruction(ElfLayout l, ByteBuffer bb, Random rnd, StringBuilder what) {
        Region r = region(l, Part.CODE, rnd);
        if (r == null) { what.append("no code"); return; }
        int i = rnd.nextInt(r.entries());
        int e = r.entry(i);
        what.append("insn @").append(e).append(' ');
        switch (rnd.nextInt(6)) {
            case 0 -> { // another operation of the class, or the source bit, or any byte
                int op = Byte.toUnsignedInt(bb.get(e));
                int v = switch (rnd.nextInt(3)) {
                    case 0 -> (op & 0x0f) | rnd.nextInt(16) << 4;
                    case 1 -> op ^ 0x08;
                    default -> rnd.nextInt(256);
                };
                bb.put(e, (byte) v);
                what.append("opcode=0x").append(Integer.toHexString(v));
            }
            case 1 -> {
                int regs = Byte.toUnsignedInt(bb.get(e + 1));
                int v = rnd.nextBoolean() ? (regs & 0xf0) | rnd.nextInt(16) : (regs & 0x0f) | rnd.nextInt(16) << 4;
                bb.put(e + 1, (byte) v);
                what.append("regs=0x").append(Integer.toHexString(v));
            }
            case 2 -> {
                long v = value(rnd, bb.getShort(e + 2));
                bb.putShort(e + 2, (short) v);
                what.append("off=").append((short) v);
            }
            case 3 -> {
                long v = value(rnd, bb.getInt(e + 4));
                bb.putInt(e + 4, (int) v);
                what.append("imm=").append((int) v);
            }
            default -> {
                int j = r.entry(rnd.nextInt(r.entries()));
                long a = bb.getLong(e), c = bb.getLong(j);
                bb.putLong(e, c);
                bb.putLong(j, a);
                what.append("swapped with @").append(j);
            }
        }
    }

    /** A section's name replaced by another program type's (or a special section's), NUL-padded. */
    private static void rename(ElfLayout l, byte[] b, Random rnd, StringBuilder what) {
        List<ElfLayout.SectionName> names = l.sectionNames();
        if (names.isEmpty()) { what.append("no section names"); return; }
        List<ElfLayout.SectionName> programs = names.stream().filter(ElfLayout.SectionName::program).toList();
        ElfLayout.SectionName n = !programs.isEmpty() && rnd.nextBoolean() ? programs.get(rnd.nextInt(programs.size()))
                : names.get(rnd.nextInt(names.size()));
        List<String> fits = Arrays.stream(SECTION_NAMES).filter(s -> s.length() <= n.length()).toList();
        if (fits.isEmpty() || n.offset() + n.length() > b.length) { what.append("no shorter name"); return; }
        String name = fits.get(rnd.nextInt(fits.size()));
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        Arrays.fill(b, n.offset(), n.offset() + n.length(), (byte) 0);
        System.arraycopy(bytes, 0, b, n.offset(), bytes.length);
        what.append("section name @").append(n.offset()).append("='").append(name).append('\'');
    }

    private static void byteIn(ElfLayout l, Part p, byte[] b, Random rnd, StringBuilder what) {
        Region r = region(l, p, rnd);
        if (r == null) { flip(b, rnd, what); return; }
        int pos = r.offset() + rnd.nextInt(r.size());
        if (pos >= b.length) return;
        byte v = p == Part.DATA ? (byte) rnd.nextInt(256) : (byte) "\0.a_/?x0"
                .charAt(rnd.nextInt(8));
        b[pos] = v;
        what.append(p.name().toLowerCase()).append(" byte @").append(pos).append('=').append(v & 0xff);
    }
}
