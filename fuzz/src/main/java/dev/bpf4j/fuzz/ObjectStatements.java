package dev.bpf4j.fuzz;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.runtime.LegacyPacketOffsets;

import java.util.List;
import java.util.Random;

import static dev.bpf4j.fuzz.RegKind.*;
import static dev.bpf4j.isa.Opcodes.*;

/**
 * The statements only a tc program of an {@link ObjectShape} has, written into a {@link ProgramWriter}:
 * map lookups (null-checked, then accesses at and around the value's bounds), updates with every flag,
 * deletes, ring-buffer output and reserve/submit/discard, {@code bpf_loop} and
 * {@code bpf_for_each_map_elem} with callbacks, tail calls through the program array, LD_ABS/LD_IND,
 * direct packet access checked against {@code data_end}, and {@code __sk_buff} loads and stores. Now and
 * then each leaves out what Linux insists on (the null check, the release, the bound), so that both
 * verifiers have something to refuse. r1-r5 are scratch, as around any call.
 */
final class ObjectStatements {
    /** {@code __sk_buff} fields a tc program may read (u32): len ... tc_classid, wire_len. */
    static final int[] CTX_READ = {0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 68, 72, 160};
    /** ... and write: mark, priority, tc_index, cb[0..4], tc_classid. */
    static final int[] CTX_WRITE = {8, 32, 44, 48, 52, 56, 60, 64, 72};
    static final int SKB_DATA = 76, SKB_DATA_END = 80;

    private final ProgramWriter w;
    private final Random rnd;
    private final int packetLen;

    ObjectStatements(ProgramWriter w, int packetLen) {
        this.w = w;
        this.rnd = w.rnd;
        this.packetLen = packetLen;
    }

    void statement() {
        boolean mapsAllowed = !w.orderless;
        switch (rnd.nextInt(12)) {
            case 0, 1 -> { if (mapsAllowed) mapLookup(); }
            case 2 -> { if (mapsAllowed) mapUpdate(); }
            case 3 -> { if (mapsAllowed) mapDelete(); }
            case 4 -> { if (mapsAllowed) ringbuf(); }
            case 5 -> { if (mapsAllowed) bpfLoop(); }
            case 6 -> { if (mapsAllowed) forEach(); }
            case 7 -> { if (mapsAllowed) tailCall(); }
            case 8 -> { if (w.ldAbs && w.depth == 1) legacyPacketLoad(); else packetAccess(); }
            case 9 -> packetAccess();
            case 10 -> ctxLoad();
            default -> ctxStore();
        }
    }

    private int pick(List<Integer> xs) { return xs.get(rnd.nextInt(xs.size())); }

    // ---- maps --------------------------------------------------------------------------------

    /** A value map, or now and then another map (a ring buffer, the program array: refused by both verifiers). */
    private int valueMap() {
        List<Integer> values = w.object.valueMaps();
        if (values.isEmpty() || rnd.nextInt(60) == 0) return rnd.nextInt(w.object.maps().size());
        return pick(values);
    }

    /** Writes a key for map {@code m} into this frame; {@code r = r10 + its offset}. */
    private void key(int r, int m) {
        MapDef d = w.object.maps().get(m);
        int keySize = Math.max(4, Math.min(8, d.keySize()));
        int k = d.isArrayLike() ? rnd.nextInt(d.maxEntries() + 1) + (rnd.nextInt(40) == 0 ? 1 << 20 : 0) : rnd.nextInt(6);
        int off = w.framePointer(r);
        w.emit(new Insn(ST | MEM | (keySize == 8 ? DW : W), 10, 0, off, k));
    }

    /** {@code r = r10 + off} with {@code bytes} of this frame from there; false when the frame is smaller. */
    private boolean buffer(int r, int bytes) {
        if (bytes > w.frame) return false;
        int off = -8 * ((bytes + 7) / 8) - 8 * rnd.nextInt((w.frame - bytes) / 8 + 1);
        w.emit(new Insn(ALU64 | MOV | X, r, 10, 0, 0));
        w.emit(new Insn(ALU64 | ADD | K, r, 0, 0, off));
        w.st.scalar(r);
        return true;
    }

    private void callHelper(int id) {
        w.emit(new Insn(JMP | CALL, 0, CALL_HELPER, 0, id));
        w.afterCall();
    }

    /** {@code if r0 == 0 goto out; <r0 = value pointer, some accesses>; out:} (rarely without the check). */
    private void mapLookup() {
        int m = valueMap();
        MapDef d = w.object.maps().get(m);
        key(2, m);
        w.loadMap(1, m);
        callHelper(HelperIds.MAP_LOOKUP_ELEM);
        w.st.clobber(0);
        boolean check = rnd.nextInt(40) != 0;
        int at = check ? w.emit(new Insn(JMP | JEQ | K, 0, 0, 0, 0)) : -1;
        GeneratorRegs skipped = w.st.copy();
        w.st.set(0, PTR_TO_MAP_VALUE, 0, d.valueSize());
        for (int n = 1 + rnd.nextInt(3); n > 0 && w.st.is(0, PTR_TO_MAP_VALUE); n--) w.memoryAccess(0);
        if (check) patch(at);
        w.st.join(skipped);
        w.st.clobber(0);
    }

    private void mapUpdate() {
        int m = valueMap();
        MapDef d = w.object.maps().get(m);
        key(2, m);
        if (!buffer(3, Math.max(1, d.valueSize()))) return;
        w.loadMap(1, m);
        w.setArg(4, rnd.nextInt(30) == 0 ? 4 : rnd.nextInt(3)); // BPF_ANY, BPF_NOEXIST, BPF_EXIST, rarely a bad flag
        callHelper(HelperIds.MAP_UPDATE_ELEM);
    }

    private void mapDelete() {
        int m = valueMap();
        key(2, m);
        w.loadMap(1, m);
        callHelper(HelperIds.MAP_DELETE_ELEM);
    }

    /** bpf_ringbuf_output from this frame, or reserve / write every byte / submit or discard (rarely neither). */
    private void ringbuf() {
        List<Integer> rbs = w.object.indexesOf(MapType.RINGBUF);
        if (rbs.isEmpty()) return;
        int rb = pick(rbs);
        if (rnd.nextBoolean()) {
            int bytes = 1 + rnd.nextInt(Math.min(32, w.frame));
            if (!buffer(2, bytes)) return;
            w.setArg(3, rnd.nextInt(30) == 0 ? bytes + 4096 : bytes);
            w.setArg(4, rnd.nextInt(30) == 0 ? 4 : rnd.nextInt(3)); // 0, BPF_RB_NO_WAKEUP, BPF_RB_FORCE_WAKEUP
            w.loadMap(1, rb);
            callHelper(HelperIds.RINGBUF_OUTPUT);
            return;
        }
        int size = rnd.nextInt(30) == 0 ? 8192 : rnd.nextBoolean() ? 8 : 16;
        w.loadMap(1, rb);
        w.setArg(2, size);
        w.setArg(3, 0);
        callHelper(HelperIds.RINGBUF_RESERVE);
        w.st.clobber(0);
        int at = w.emit(new Insn(JMP | JEQ | K, 0, 0, 0, 0));
        GeneratorRegs skipped = w.st.copy();
        // Linux does not clear a reservation: write all of it before anything is submitted
        for (int off = 0; off < Math.min(size, 16); off += 8) {
            int src = w.scalarReg();
            w.emit(src >= 0 && src != 0 ? new Insn(STX | MEM | DW, 0, src, off, 0) : new Insn(ST | MEM | DW, 0, 0, off, InsnChoices.imm(rnd)));
        }
        if (rnd.nextInt(40) != 0) {
            w.emit(new Insn(ALU64 | MOV | X, 1, 0, 0, 0));
            w.setArg(2, 0);
            callHelper(rnd.nextBoolean() ? HelperIds.RINGBUF_SUBMIT : HelperIds.RINGBUF_DISCARD);
        }
        w.st.clobber(0); // both return void
        patch(at);
        w.st.join(skipped);
        w.st.clobber(0);
    }

    /** bpf_loop(nr, callback, ctx, flags): the callback gets (index, ctx) and returns 0 (go on) or 1 (stop). */
    private void bpfLoop() {
        if (!w.mayAddFunction()) return;
        GeneratorRegs entry = new GeneratorRegs();
        entry.scalar(1);
        int nr = rnd.nextInt(40) == 0 ? (1 << 23) + 1 : rnd.nextInt(5);
        if (rnd.nextBoolean()) entry.set(2, PTR_TO_OUTER_STACK, w.framePointer(3), w.frame);
        else {
            w.setArg(3, 0);
            entry.scalar(2);
        }
        int f = w.function(entry, ProgramWriter.Role.CALLBACK);
        w.setArg(1, nr);
        w.loadFunction(2, f);
        w.setArg(4, rnd.nextInt(40) == 0 ? 1 : 0);
        callHelper(HelperIds.LOOP);
    }

    /**
     * bpf_for_each_map_elem(map, callback, ctx, 0): the callback gets (map, key, value, ctx). Over a hash
     * map the order is Linux's bucket order, which bpf4j need not share: there the callback touches only
     * its own value and returns 0 ({@link ProgramWriter.Role#ORDERLESS_CALLBACK}).
     */
    private void forEach() {
        List<Integer> values = w.object.valueMaps();
        if (values.isEmpty() || !w.mayAddFunction()) return;
        int m = pick(values);
        MapDef d = w.object.maps().get(m);
        GeneratorRegs entry = new GeneratorRegs();
        entry.set(3, PTR_TO_MAP_VALUE, 0, d.valueSize());
        if (d.isArrayLike() && rnd.nextBoolean()) entry.set(4, PTR_TO_OUTER_STACK, w.framePointer(3), w.frame);
        else {
            w.setArg(3, 0);
            entry.scalar(4);
        }
        int f = w.function(entry, d.isArrayLike() ? ProgramWriter.Role.CALLBACK : ProgramWriter.Role.ORDERLESS_CALLBACK);
        w.loadMap(1, m);
        w.loadFunction(2, f);
        w.setArg(4, 0);
        callHelper(HelperIds.FOR_EACH_MAP_ELEM);
    }

    /** bpf_tail_call(ctx, prog_array, index): slot 0 is this program (recursion to Linux's 33), 1 another, 2 empty. */
    private void tailCall() {
        int pa = w.object.progArray();
        if (pa < 0 || w.depth != 1) return;
        w.emit(new Insn(ALU64 | MOV | X, 1, 6, 0, 0));
        w.loadMap(2, pa);
        w.setArg(3, rnd.nextInt(20) == 0 ? new int[] {3, 100, -1}[rnd.nextInt(3)] : rnd.nextInt(3));
        callHelper(HelperIds.TAIL_CALL);
        w.st.clobber(0); // void: r0 is not readable after a tail call that falls through
    }

    // ---- packet and context ------------------------------------------------------------------

    /** {@code r0 = skb[k]} or {@code skb[rX + k]}, 1, 2 or 4 bytes, at and past the packet's end. */
    private void legacyPacketLoad() {
        int size = rnd.nextInt(40) == 0 ? DW : new int[] {B, H, W}[rnd.nextInt(3)];
        int bytes = InsnChoices.bytes(size);
        int k = rnd.nextInt(4) == 0 ? packetLen - bytes + rnd.nextInt(2 * bytes + 1) - bytes : rnd.nextInt(Math.max(1, packetLen - bytes + 1));
        // now and then past the network or link-layer header (SKF_NET_OFF/SKF_LL_OFF + k), or just below one
        switch (rnd.nextInt(8)) {
            case 0 -> k += LegacyPacketOffsets.SKF_NET_OFF - 14 * rnd.nextInt(2);
            case 1 -> k += LegacyPacketOffsets.SKF_LL_OFF;
            case 2 -> k = rnd.nextInt(3) == 0 ? LegacyPacketOffsets.SKF_NET_OFF - 1 - rnd.nextInt(4) : k;
            default -> { }
        }
        if (rnd.nextBoolean()) {
            w.emit(new Insn(LD | ABS | size, 0, 0, 0, k));
        } else {
            int src = w.writableReg(true);
            if (src < 0) return;
            int base = rnd.nextInt(Math.max(1, packetLen));
            w.emit(new Insn(ALU64 | MOV | K, src, 0, 0, base));
            w.st.scalar(src);
            w.emit(new Insn(LD | IND | size, 0, src, 0, k - base));
        }
        w.afterCall(); // like a call: r1-r5 clobbered, r0 the value
    }

    /** {@code r2 = data; r3 = data_end; if r2 + n > r3 goto out; <accesses through r2 within n>; out:}. */
    private void packetAccess() {
        if (w.depth != 1) return; // r6 is the context in the main function only
        int n = 1 + rnd.nextInt(packetLen + 8);
        w.emit(new Insn(LDX | MEM | W, 2, 6, SKB_DATA, 0));
        w.emit(new Insn(LDX | MEM | W, 3, 6, SKB_DATA_END, 0));
        w.emit(new Insn(ALU64 | MOV | X, 4, 2, 0, 0));
        w.emit(new Insn(ALU64 | ADD | K, 4, 0, 0, n));
        for (int r = 2; r <= 4; r++) w.st.clobber(r);
        int at = w.emit(new Insn(JMP | JGT | X, 4, 3, 0, 0));
        GeneratorRegs out = w.st.copy();
        w.st.set(2, PTR_TO_PACKET, 0, n);
        for (int i = 1 + rnd.nextInt(3); i > 0 && w.st.is(2, PTR_TO_PACKET); i--) w.memoryAccess(2);
        patch(at);
        w.st.join(out);
        for (int r = 2; r <= 4; r++) w.st.clobber(r);
    }

    private void ctxLoad() {
        if (w.depth != 1) return;
        int dst = w.writableReg(true);
        if (dst < 0) return;
        int off = CTX_READ[rnd.nextInt(CTX_READ.length)];
        int size = W;
        if (rnd.nextInt(30) == 0) off = 184 + 4 * rnd.nextInt(4);     // around the end of __sk_buff
        if (rnd.nextInt(30) == 0) off += 1 + rnd.nextInt(3);          // misaligned
        if (rnd.nextInt(10) == 0) size = rnd.nextBoolean() ? B : H;   // narrow loads of a field
        w.emit(new Insn(LDX | MEM | size, dst, 6, off, 0));
        w.st.scalar(dst);
    }

    private void ctxStore() {
        if (w.depth != 1) return;
        int src = w.scalarReg();
        if (src < 0) return;
        int off = CTX_WRITE[rnd.nextInt(CTX_WRITE.length)];
        if (rnd.nextInt(30) == 0) off = CTX_READ[rnd.nextInt(CTX_READ.length)]; // a read-only field
        if (rnd.nextInt(30) == 0) w.emit(new Insn(ST | MEM | W, 6, 0, off, InsnChoices.imm(rnd))); // Linux refuses BPF_ST into ctx
        else w.emit(new Insn(STX | MEM | W, 6, src, off, 0));
    }

    private void patch(int at) { w.code.set(at, InsnChoices.withOff(w.code.get(at), w.code.size() - at - 1)); }
}
