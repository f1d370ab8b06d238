package dev.bpf4j.unwind.cfi;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes {@code .eh_frame} records and a matching {@code .eh_frame_hdr} for tests: CIEs with any
 * augmentation bytes, FDEs with pc_begin pc-relative sdata4 ({@code 0x1b}) or absolute udata4
 * ({@code 0x03}), and a header table of datarel sdata4 pairs ({@code 0x3b}) as binutils writes.
 */
final class CfiBytes {
    static final long EH_VADDR = 0x2000, HDR_VADDR = 0x1000;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final List<long[]> fdes = new ArrayList<>();

    /** A CIE; {@code augData} is what follows the 'z' length (encodings, personality). */
    int cie(String augmentation, int codeAlign, int dataAlign, int ra, byte[] augData, byte[] instructions) {
        int at = out.size();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        le32(b, 0);           // CIE id
        b.write(1);           // version
        b.writeBytes(augmentation.getBytes());
        b.write(0);
        uleb(b, codeAlign);
        sleb(b, dataAlign);
        b.write(ra);
        if (!augmentation.isEmpty()) {
            uleb(b, augData.length);
            b.writeBytes(augData);
        }
        b.writeBytes(instructions);
        record(b.toByteArray());
        return at;
    }

    /** An FDE for {@code [pc, pc + range)}; {@code encoding} 0x1b or 0x03; {@code augData} null when the CIE has no 'z'. */
    int fde(int cie, int encoding, long pc, long range, byte[] augData, byte[] instructions) {
        int at = out.size();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        le32(b, at + 4 - cie);   // CIE pointer: back from this field
        long fieldVaddr = EH_VADDR + at + 8;
        le32(b, (int) (encoding == 0x1b ? pc - fieldVaddr : pc));
        le32(b, (int) range);
        if (augData != null) {
            uleb(b, augData.length);
            b.writeBytes(augData);
        }
        b.writeBytes(instructions);
        record(b.toByteArray());
        fdes.add(new long[] {pc, EH_VADDR + at});
        return at;
    }

    private void record(byte[] body) {
        // Pad to 8 bytes with DW_CFA_nop, as assemblers do.
        int pad = (8 - (4 + body.length) % 8) % 8;
        le32(out, body.length + pad);
        out.writeBytes(body);
        for (int i = 0; i < pad; i++) out.write(0);
    }

    byte[] ehFrame() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(out.toByteArray());
        le32(b, 0);   // terminator
        return b.toByteArray();
    }

    byte[] hdr() {
        List<long[]> sorted = new ArrayList<>(fdes);
        sorted.sort((x, y) -> Long.compare(x[0], y[0]));
        ByteBuffer b = ByteBuffer.allocate(12 + 8 * sorted.size()).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 1).put((byte) 0x1b).put((byte) 0x03).put((byte) 0x3b);
        b.putInt((int) (EH_VADDR - (HDR_VADDR + 4)));
        b.putInt(sorted.size());
        for (long[] f : sorted) b.putInt((int) (f[0] - HDR_VADDR)).putInt((int) (f[1] - HDR_VADDR));
        return b.array();
    }

    ModuleCfi module() { return ModuleCfi.of("test", ehFrame(), EH_VADDR, hdr(), HDR_VADDR); }

    static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) b[i] = (byte) v[i];
        return b;
    }

    static void le32(ByteArrayOutputStream b, int v) {
        for (int i = 0; i < 4; i++) b.write(v >>> (8 * i));
    }

    static void uleb(ByteArrayOutputStream b, long v) {
        do {
            int x = (int) (v & 0x7f);
            v >>>= 7;
            b.write(v != 0 ? x | 0x80 : x);
        } while (v != 0);
    }

    static void sleb(ByteArrayOutputStream b, long v) {
        while (true) {
            int x = (int) (v & 0x7f);
            v >>= 7;
            boolean done = (v == 0 && (x & 0x40) == 0) || (v == -1 && (x & 0x40) != 0);
            b.write(done ? x : x | 0x80);
            if (done) return;
        }
    }
}
