package dev.bpf4j.btf;

import dev.bpf4j.elf.ByteView;
import dev.bpf4j.runtime.LoadPhase;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.bpf4j.btf.Btf.bad;

/**
 * Parsed {@code .BTF.ext}: the func_info and line_info records of each code section, keyed by
 * ELF section name, with instruction offsets converted from bytes to instruction indices (relative
 * to the section start) and strings resolved through the {@code .BTF} string section; and the
 * CO-RE relocation records, kept for a loader to apply.
 */
public final class BtfExt {
    private static final int HEADER_MIN = 24, HEADER_WITH_CORE = 32, FUNC_REC_MIN = 8, LINE_REC_MIN = 16, CORE_REC_MIN = 16;

    private final Map<String, List<FuncInfo>> funcInfos;
    private final Map<String, List<LineInfo>> lineInfos;
    private final Map<String, List<CoreRelocation>> coreRelocations;

    private BtfExt(Map<String, List<FuncInfo>> funcInfos, Map<String, List<LineInfo>> lineInfos,
                   Map<String, List<CoreRelocation>> coreRelocations) {
        this.funcInfos = funcInfos;
        this.lineInfos = lineInfos;
        this.coreRelocations = coreRelocations;
    }

    public static BtfExt empty() { return new BtfExt(Map.of(), Map.of(), Map.of()); }

    /** The CO-RE relocation records of a section, sorted by instruction. */
    public List<CoreRelocation> coreRelocations(String section) { return coreRelocations.getOrDefault(section, List.of()); }

    /** The CO-RE relocation records of instructions {@code [from, to)} of a section. */
    public List<CoreRelocation> coreRelocations(String section, int from, int to) {
        List<CoreRelocation> all = coreRelocations(section);
        return all.subList(lowerBound(all, from, CoreRelocation::insnIndex), lowerBound(all, to, CoreRelocation::insnIndex));
    }

    /** The func_info records of a section, sorted by instruction. */
    public List<FuncInfo> funcInfos(String section) { return funcInfos.getOrDefault(section, List.of()); }

    /** The line_info records of a section, sorted by instruction. */
    public List<LineInfo> lineInfos(String section) { return lineInfos.getOrDefault(section, List.of()); }

    /** The func_info records of instructions {@code [from, to)} of a section. */
    public List<FuncInfo> funcInfos(String section, int from, int to) {
        List<FuncInfo> all = funcInfos(section);
        return all.subList(lowerBound(all, from, FuncInfo::insnIndex), lowerBound(all, to, FuncInfo::insnIndex));
    }

    /** The line_info records of instructions {@code [from, to)} of a section. */
    public List<LineInfo> lineInfos(String section, int from, int to) {
        List<LineInfo> all = lineInfos(section);
        return all.subList(lowerBound(all, from, LineInfo::insnIndex), lowerBound(all, to, LineInfo::insnIndex));
    }

    private static <T> int lowerBound(List<T> sorted, int key, java.util.function.ToIntFunction<T> index) {
        int lo = 0, hi = sorted.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (index.applyAsInt(sorted.get(mid)) < key) lo = mid + 1; else hi = mid;
        }
        return lo;
    }

    public static BtfExt parse(ByteView data, Btf btf) { return LoadPhase.guard(() -> read(data, btf)); }

    private static BtfExt read(ByteView data, Btf btf) {
        if (data.length() < 8) throw bad(".BTF.ext is %d bytes, shorter than its header", data.length());
        int magic = data.u16(0);
        if (magic != BtfParser.MAGIC) throw bad(".BTF.ext magic 0x%04x is not 0xeb9f", magic);
        if (data.u8(2) != 1) throw bad(".BTF.ext version %d is not 1", data.u8(2));
        long hdrLen = data.u32(4);
        if (hdrLen < HEADER_MIN || hdrLen > data.length()) throw bad(".BTF.ext header length %d is invalid (section is %d bytes)", hdrLen, data.length());
        ByteView body = data.slice(hdrLen, data.length() - hdrLen, ".BTF.ext data");
        Map<String, List<FuncInfo>> funcs = new LinkedHashMap<>();
        for (Block b : blocks(body, data.u32(8), data.u32(12), FUNC_REC_MIN, "func_info", btf)) {
            List<FuncInfo> list = new ArrayList<>(b.count);
            for (int i = 0; i < b.count; i++) {
                long p = b.offset + (long) i * b.recSize;
                int typeId = body.s32(p + 4);
                BtfType t = btf.type(typeId);
                list.add(new FuncInfo(insnIndex(body.u32(p), "func_info", b.section), typeId, t.name()));
            }
            funcs.computeIfAbsent(b.section, k -> new ArrayList<>()).addAll(list);
        }
        Map<String, List<LineInfo>> lines = new LinkedHashMap<>();
        for (Block b : blocks(body, data.u32(16), data.u32(20), LINE_REC_MIN, "line_info", btf)) {
            List<LineInfo> list = new ArrayList<>(b.count);
            for (int i = 0; i < b.count; i++) {
                long p = b.offset + (long) i * b.recSize;
                long lineCol = body.u32(p + 12);
                list.add(new LineInfo(insnIndex(body.u32(p), "line_info", b.section), btf.string(body.u32(p + 4)),
                        btf.string(body.u32(p + 8)), (int) (lineCol >>> 10), (int) (lineCol & 0x3ff)));
            }
            lines.computeIfAbsent(b.section, k -> new ArrayList<>()).addAll(list);
        }
        Map<String, List<CoreRelocation>> core = new LinkedHashMap<>();
        if (hdrLen >= HEADER_WITH_CORE) {
            for (Block b : blocks(body, data.u32(24), data.u32(28), CORE_REC_MIN, "core_relo", btf)) {
                List<CoreRelocation> list = new ArrayList<>(b.count);
                for (int i = 0; i < b.count; i++) {
                    long p = b.offset + (long) i * b.recSize;
                    int typeId = body.s32(p + 4);
                    btf.type(typeId);
                    long kindId = body.u32(p + 12);
                    CoreRelocation.Kind kind = CoreRelocation.Kind.of(kindId);
                    if (kind == null) throw bad(".BTF.ext core_relo for section '%s': unknown kind %d", b.section, kindId);
                    list.add(new CoreRelocation(insnIndex(body.u32(p), "core_relo", b.section), typeId, btf.string(body.u32(p + 8)), kind));
                }
                core.computeIfAbsent(b.section, k -> new ArrayList<>()).addAll(list);
            }
        }
        return new BtfExt(freeze(funcs, FuncInfo::insnIndex), freeze(lines, LineInfo::insnIndex), freeze(core, CoreRelocation::insnIndex));
    }

    private static <T> Map<String, List<T>> freeze(Map<String, List<T>> m, java.util.function.ToIntFunction<T> index) {
        Map<String, List<T>> out = new LinkedHashMap<>();
        m.forEach((k, v) -> {
            List<T> sorted = new ArrayList<>(v);
            sorted.sort(java.util.Comparator.comparingInt(index));
            // As the kernel demands: at most one record per instruction (also bounds the copies made per program).
            for (int i = 1; i < sorted.size(); i++) {
                if (index.applyAsInt(sorted.get(i)) == index.applyAsInt(sorted.get(i - 1))) {
                    throw bad(".BTF.ext: section '%s' has two records for instruction %d", k, index.applyAsInt(sorted.get(i)));
                }
            }
            out.put(k, List.copyOf(sorted));
        });
        return Map.copyOf(out);
    }

    private static int insnIndex(long byteOff, String what, String section) {
        if (byteOff % 8 != 0) throw bad(".BTF.ext %s for section '%s': instruction offset %d is not a multiple of 8", what, section, byteOff);
        return (int) (byteOff / 8);
    }

    /** One {@code btf_ext_info_sec}: the records of one section. */
    private record Block(String section, long offset, int count, int recSize) {}

    private static List<Block> blocks(ByteView body, long off, long len, int minRec, String what, Btf btf) {
        List<Block> out = new ArrayList<>();
        if (len == 0) return out;
        if (!body.contains(off, len)) throw bad(".BTF.ext %s (offset %d, length %d) extends past the section", what, off, len);
        if (len < 4) throw bad(".BTF.ext %s is too short for its record size", what);
        long recSize = body.u32(off);
        if (recSize < minRec || recSize % 4 != 0 || recSize > len) throw bad(".BTF.ext %s record size %d is invalid", what, recSize);
        long p = off + 4, end = off + len;
        while (p < end) {
            if (end - p < 8) throw bad(".BTF.ext %s: truncated section header at offset %d", what, p);
            String section = btf.string(body.u32(p));
            long count = body.u32(p + 4);
            p += 8;
            if (count == 0) throw bad(".BTF.ext %s for section '%s' has no records", what, section);
            if (count > (end - p) / recSize) throw bad(".BTF.ext %s for section '%s': %d records of %d bytes extend past the section", what, section, count, recSize);
            out.add(new Block(section, p, (int) count, (int) recSize));
            p += count * recSize;
        }
        return out;
    }
}
