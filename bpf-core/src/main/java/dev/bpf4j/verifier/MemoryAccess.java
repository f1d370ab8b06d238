package dev.bpf4j.verifier;

import dev.bpf4j.runtime.Limits;
import java.util.Arrays;

/**
 * Loads, stores and atomics through a typed pointer ({@code check_mem_access}). Stack accesses are
 * proven inside the frame the pointer belongs to and tracked byte by byte (spills keep a register's
 * state whole); map values are bounded by {@code value_size} where the map is known; the ctx of a
 * kernel program type needs constant offsets and yields packet pointers at the packet context's
 * fields. Everything else a pointer reaches (packet, ring-buffer memory, the conformance suites'
 * memory block) is checked at run time by both engines alike. Storing a pointer anywhere but the
 * stack would let its address be read back: rejected unless pointer leaks are allowed.
 */
final class MemoryAccess {
    /** The kernel's BPF_MAX_VAR_OFF: larger pointer offsets are rejected or left to run-time checks. */
    static final long MAX_VAR_OFF = 1L << 29;

    private final Reject reject;
    private final VerifierPolicy policy;
    private final StackDepth depths;

    MemoryAccess(Reject reject, VerifierPolicy policy, StackDepth depths) {
        this.reject = reject;
        this.policy = policy;
        this.depths = depths;
    }

    /** The loaded value's state for {@code dst = *(size *)(base + off)}. */
    RegState load(VerifierState st, int pc, int baseReg, RegState base, int off, int size, boolean signExtend) {
        switch (base.type) {
            case PTR_TO_STACK: return stackRead(st, pc, baseReg, base, off, size, signExtend);
            case PTR_TO_CTX: {
                long at = checkCtx(pc, baseReg, base, off, size, false, signExtend);
                if (policy.ctxRules() != null) {
                    RegType t = CtxAccess.check(policy.ctxRules(), at, size, false, signExtend);
                    return t == RegType.SCALAR ? loadedScalar(size, signExtend) : RegState.pointer(t, 0);
                }
                if (policy.packetContext() != null && at >= 0 && size == 4 && !signExtend) {
                    if (at == policy.packetContext().dataOffset()) return RegState.pointer(RegType.PTR_TO_PACKET, 0);
                    if (at == policy.packetContext().dataEndOffset()) return RegState.pointer(RegType.PTR_TO_PACKET_END, 0);
                    if (at == policy.packetContext().dataMetaOffset()) return RegState.pointer(RegType.PTR_TO_PACKET_META, 0);
                }
                return loadedScalar(size, signExtend);
            }
            case PTR_TO_BTF_ID:
                btfRead(pc, baseReg, base, off, size);
                return loadedScalar(size, signExtend);
            default:
                checkPointer(pc, baseReg, base, off, size);
                return loadedScalar(size, signExtend);
        }
    }

    /**
     * check_ptr_to_btf_access for a read: a constant, non-negative offset inside the struct, in Linux's words;
     * then only the fields bpf4j fills (a gap against Linux, which reads any member: docs/helpers.md).
     */
    private void btfRead(int pc, int baseReg, RegState base, int off, int size) {
        BtfObject o = BtfObject.of(base.target);
        long at = base.off + off;
        if (!base.isConst() || base.smin != 0) {
            throw reject.at(pc, "R" + baseReg + " is ptr_" + o.structName + " invalid variable offset: off=" + at
                    + ", var_off=" + base.tnum);
        }
        if (at < 0) throw reject.at(pc, "R" + baseReg + " is ptr_" + o.structName + " invalid negative access: off=" + at);
        if (at + size > o.size) throw reject.at(pc, "access beyond struct " + o.structName + " at off " + at + " size " + size);
        if (!o.readable(at, size)) {
            throw reject.at(pc, "R" + baseReg + " is ptr_" + o.structName + ": bpf4j reads no field of struct " + o.structName
                    + " at off " + at + " size " + size + (o == BtfObject.VM_AREA_STRUCT
                    ? " (only vm_start, vm_end, vm_flags, vm_pgoff, vm_file)" : ""));
        }
    }

    /** {@code *(size *)(base + off) = value} ({@code valueReg} -1 for an immediate). */
    void store(VerifierState st, int pc, int baseReg, RegState base, int off, int size, RegState value, int valueReg) {
        if (base.type == RegType.PTR_TO_BTF_ID) throw reject.at(pc, "only read is supported");
        if (base.type == RegType.PTR_TO_STACK) {
            stackWrite(st, pc, baseReg, base, off, size, value, valueReg);
            return;
        }
        if (value.type.isPointer()) {
            String where = base.type == RegType.PTR_TO_MAP_VALUE ? "map" : base.type == RegType.PTR_TO_CTX ? "ctx"
                    : base.type == RegType.PTR_TO_PACKET || base.type == RegType.PTR_TO_PACKET_META ? "packet" : "mem";
            leakCheck(pc, "R" + valueReg + " leaks addr into " + where);
        }
        if (base.type == RegType.PTR_TO_CTX) checkCtx(pc, baseReg, base, off, size, true, false);
        else checkPointer(pc, baseReg, base, off, size);
    }

    /**
     * An atomic read-modify-write of a scalar in memory; returns what a fetch loads. On the stack that is
     * what a read of the bytes gives before the write (check_atomic_rmw reads into the fetch register
     * first: a spilled constant stays known), elsewhere an unknown scalar of the size.
     */
    RegState atomic(VerifierState st, int pc, int baseReg, RegState base, int off, int size) {
        if (base.type == RegType.PTR_TO_BTF_ID) throw reject.at(pc, "only read is supported");
        if (base.type == RegType.PTR_TO_STACK) {
            FuncState frame = frameOf(st, base);
            long lo = stackRange(frame, pc, baseReg, base, off, size, " write to");
            if (!base.isConst()) throw reject.at(pc, "R" + baseReg + " variable-offset atomic access to the stack prohibited");
            int slot = FuncState.slot(lo);
            if (frame.stack[FuncState.byteIndex(lo)] == FuncState.STACK_SPILL && frame.spilled[slot].type.isPointer()) {
                leakCheck(pc, "R" + baseReg + " atomic on a spilled pointer at off=" + lo + " prohibited");
            }
            RegState old = stackRead(st, pc, baseReg, base, off, size, false);
            markMisc(frame, lo, size);
            return old.type == RegType.SCALAR ? old : loadedScalar(size, false);
        }
        if (base.type == RegType.PTR_TO_PACKET || base.type == RegType.PTR_TO_PACKET_META) { // Linux: not on packets
            throw reject.at(pc, "BPF_ATOMIC stores into R" + baseReg + " " + base.type.logName + " is not allowed");
        }
        if (base.type == RegType.PTR_TO_MAP_VALUE && base.smin == base.smax && Math.floorMod(base.off + base.smin + off, size) != 0) {
            // check_ptr_alignment: atomics are strict even where plain accesses may be misaligned (a variable
            // offset needs tnums to tell: left to the run-time check, docs/verifier.md)
            throw reject.at(pc, "misaligned value access off " + base.smin + "+" + base.off + "+" + off + " size " + size);
        }
        if (base.type == RegType.PTR_TO_CTX) {
            if (policy.ctxFixedOffsets()) throw reject.at(pc, "BPF_ATOMIC stores into R" + baseReg + " ctx is not allowed");
            checkCtx(pc, baseReg, base, off, size, true, false); // the suites' memory block: a plain buffer, as a map value is in Linux
            return loadedScalar(size, false);
        }
        checkPointer(pc, baseReg, base, off, size);
        return loadedScalar(size, false);
    }

    // ---- the stack ----

    /** The frame a stack pointer points into (always the current one or a caller's: callee frames cannot be returned). */
    private static FuncState frameOf(VerifierState st, RegState base) { return st.frames.get(base.frameno); }

    /**
     * Checks that every byte {@code base + off + [0, size)} may touch lies in the pointer's frame
     * {@code [-512, 0)} and, at a constant offset, that the access is aligned; returns the lowest offset.
     */
    long stackRange(FuncState frame, int pc, int baseReg, RegState base, long off, long size, String access) {
        return stackRange(frame, pc, baseReg, base, off, size, true, access);
    }

    /** As above; {@code aligned} false for a helper's memory argument, which any byte may start. Grows the frame's {@link StackDepth}. */
    long stackRange(FuncState frame, int pc, int baseReg, RegState base, long off, long size, boolean aligned, String access) {
        if (base.smin <= -MAX_VAR_OFF || base.smax >= MAX_VAR_OFF) {
            throw reject.at(pc, "R" + baseReg + " unbounded variable-offset stack access var_off=[" + base.smin + ", " + base.smax + "]");
        }
        long lo = base.off + base.smin + off, hi = base.off + base.smax + off;
        if (lo < -Limits.STACK_SIZE || hi + size > 0 || size <= 0) {
            if (base.isConst()) throw reject.at(pc, "invalid stack off=" + lo + " size=" + size + " (R" + baseReg
                    + " = fp" + (base.frameno != 0 ? "[frame " + base.frameno + "]" : "") + (base.off + base.smin >= 0 ? "+" : "")
                    + (base.off + base.smin) + "; a frame is [fp-" + Limits.STACK_SIZE + ", fp))");
            // check_stack_access_within_bounds' words; access is " read from", " write to" or " indirect access to"
            throw reject.at(pc, "invalid variable-offset" + access + " stack R" + baseReg + " var_off=" + base.tnum + " off="
                    + (base.off + off) + " size=" + size + " (offsets [" + base.smin + ", " + base.smax + "] from it)");
        }
        if (aligned && base.isConst() && size <= 8 && Math.floorMod(lo, size) != 0) {
            throw reject.at(pc, "misaligned stack access off " + lo + " size " + size);
        }
        depths.grow(frame, lo);
        return lo;
    }

    private RegState stackRead(VerifierState st, int pc, int baseReg, RegState base, int off, int size, boolean signExtend) {
        FuncState frame = frameOf(st, base);
        long lo = stackRange(frame, pc, baseReg, base, off, size, " read from");
        long hi = base.off + base.smax + off + size;
        if (base.isConst() && frame.stack[FuncState.byteIndex(lo) & ~7] == FuncState.STACK_SPILL) {
            return fill(frame, pc, baseReg, lo, size, signExtend);
        }
        boolean allZero = true; // mark_reg_stack_read: zero only when every byte read is STACK_ZERO
        for (long a = lo; a < hi; a++) {
            byte b = frame.stack[FuncState.byteIndex(a)];
            if (b == FuncState.STACK_SPILL && frame.spilled[FuncState.slot(a)].type.isPointer()) {
                leakCheck(pc, "invalid size of register fill: R" + baseReg + " reads part of a spilled "
                        + frame.spilled[FuncState.slot(a)].type.logName + " at off=" + a);
            }
            if (b != FuncState.STACK_ZERO) allZero = false;
        }
        return allZero ? RegState.constant(0) : loadedScalar(size, signExtend);
    }

    /**
     * A read at a constant offset of a slot that holds a spill (check_stack_read_fixed_off): the whole
     * spilled register, or a narrow fill of a spilled constant's low bytes coerced to the size, as Linux
     * 6.18 does; elsewhere in the slot zero only when every byte read is a spilled 0 or every byte is
     * STACK_ZERO. Linux also keeps narrow spills and fills of scalars that are not constants; it can,
     * because its pruning ignores bounds no decision used (precision tracking, which bpf4j lacks: without
     * it the bounds a bubble sort's compares leave in its u32 array made every path a new state, and the
     * bench's sort went past the 1M-instruction limit).
     */
    private RegState fill(FuncState frame, int pc, int baseReg, long lo, int size, boolean signExtend) {
        int slot = FuncState.slot(lo), first = slot * 8;
        RegState spilled = frame.spilled[slot];
        int spillSize = 0;
        while (spillSize < 8 && frame.stack[first + spillSize] == FuncState.STACK_SPILL) spillSize++;
        if (size == 8 && spillSize == 8) return spilled.copy();
        if (spilled.type != RegType.SCALAR) {
            leakCheck(pc, "invalid size of register fill: R" + baseReg + " reads part of a spilled " + spilled.type.logName
                    + " at off=" + lo);
            return loadedScalar(size, signExtend);
        }
        if (size <= spillSize && (FuncState.byteIndex(lo) & 7) == 0 && spilled.isConst()) {
            RegState r = spilled.copy();
            if (signExtend) r.coerceToSizeSx(size);
            else r.coerceToSize(size);
            return r;
        }
        int spills = 0, zeros = 0;
        for (int i = FuncState.byteIndex(lo); i < FuncState.byteIndex(lo) + size; i++) {
            if (frame.stack[i] == FuncState.STACK_SPILL) spills++;
            else if (frame.stack[i] == FuncState.STACK_ZERO) zeros++;
        }
        if ((spills == size && spilled.isConstZero()) || zeros == size) return RegState.constant(0);
        return loadedScalar(size, signExtend);
    }

    private void stackWrite(VerifierState st, int pc, int baseReg, RegState base, int off, int size, RegState value, int valueReg) {
        FuncState frame = frameOf(st, base);
        long lo = stackRange(frame, pc, baseReg, base, off, size, " write to");
        if (value.type == RegType.PTR_TO_STACK && value.frameno > frame.frameno) {
            throw reject.at(pc, "cannot spill pointers to stack into stack frame of the caller");
        }
        if (value.type.isPointer() && (size != 8 || !base.isConst())) {
            leakCheck(pc, "invalid size of register spill: R" + valueReg + " (" + value.type.logName + ") stored with size " + size);
        }
        long hi = base.off + base.smax + off + size;
        for (long a = lo; a < hi; a += 8 - Math.floorMod(a, 8)) { // each slot the write may touch
            int slot = FuncState.slot(a);
            if (frame.stack[slot * 8] == FuncState.STACK_SPILL && frame.spilled[slot].type.isPointer()
                    && !(base.isConst() && size == 8)) {
                leakCheck(pc, "attempt to corrupt spilled pointer on stack at off=" + (slot * 8 - Limits.STACK_SIZE));
            }
        }
        if (base.isConst() && (FuncState.byteIndex(lo) & 7) == 0 && (size == 8 || (value.type == RegType.SCALAR && value.isConst()))) {
            spill(frame, lo, size, value); // any register of 8 bytes; a constant (an immediate too) of any size
            return;
        }
        if (base.isConst() && value.isConstZero()) {
            unspill(frame, lo, size);
            Arrays.fill(frame.stack, FuncState.byteIndex(lo), FuncState.byteIndex(lo) + size, FuncState.STACK_ZERO);
            return;
        }
        markMisc(frame, lo, hi - lo);
    }

    /**
     * save_register_state: the slot's low {@code size} bytes hold {@code value} (STACK_SPILL), its other
     * bytes keep ZERO and INVALID and become MISC otherwise.
     */
    private static void spill(FuncState frame, long lo, int size, RegState value) {
        int first = FuncState.byteIndex(lo);
        frame.spilled[FuncState.slot(lo)] = value.copy();
        Arrays.fill(frame.stack, first, first + size, FuncState.STACK_SPILL);
        for (int i = first + size; i < first + 8; i++) {
            if (frame.stack[i] == FuncState.STACK_SPILL) frame.stack[i] = FuncState.STACK_MISC;
        }
    }

    /** Marks {@code [lo, lo + len)} as holding some scalar bytes; a spill they touch is broken up. */
    static void markMisc(FuncState frame, long lo, long len) {
        unspill(frame, lo, len);
        Arrays.fill(frame.stack, FuncState.byteIndex(lo), FuncState.byteIndex(lo + len), FuncState.STACK_MISC);
    }

    /** A spill partly overwritten (scrub_spilled_slot): every byte of its slot but INVALID ones becomes MISC. */
    private static void unspill(FuncState frame, long lo, long len) {
        for (int slot = FuncState.slot(lo); slot <= FuncState.slot(lo + len - 1); slot++) {
            if (frame.stack[slot * 8] != FuncState.STACK_SPILL) continue;
            for (int i = slot * 8; i < slot * 8 + 8; i++) {
                if (frame.stack[i] != FuncState.STACK_INVALID) frame.stack[i] = FuncState.STACK_MISC;
            }
            frame.spilled[slot] = null;
        }
    }

    // ---- other memory ----

    /** Returns the constant ctx offset, or -1 where the offset varies (only where the ctx is a run-time checked block). */
    private long checkCtx(int pc, int baseReg, RegState base, int off, int size, boolean write, boolean signExtend) {
        if (!policy.ctxFixedOffsets() && base.isConst() && base.off + base.smin + off < 0) {
            // Before the suites' memory block lies no byte of it, but maybe another region of the run (an
            // engine's frames): what such an access meets would differ between engines. (A variable
            // offset is left to the run-time check: docs/verifier.md, not done.)
            throw reject.at(pc, "R" + baseReg + " min value is outside of the allowed memory range (offset "
                    + (base.off + base.smin + off) + " before the memory block)");
        }
        if (!base.isConst()) {
            if (policy.ctxFixedOffsets()) {
                throw reject.at(pc, "dereference of modified ctx ptr R" + baseReg + " off=" + (base.off + off) + " disallowed");
            }
            return -1;
        }
        if (policy.ctxFixedOffsets() && base.off + base.smin != 0) { // check_ptr_off_reg: only the instruction's offset
            throw reject.at(pc, "dereference of modified ctx ptr R" + baseReg + " off=" + (base.off + base.smin) + " disallowed");
        }
        long at = base.off + base.smin + off;
        boolean valid = policy.ctxRules() != null ? CtxAccess.check(policy.ctxRules(), at, size, write, signExtend) != null
                : at >= 0 && at + size <= MAX_CTX;
        if (policy.ctxFixedOffsets() && !valid) {
            throw reject.at(pc, "invalid bpf_context access off=" + at + " size=" + size);
        }
        return at;
    }

    /** No context a kernel program type has is larger (struct __sk_buff is 192 bytes, pt_regs 168). */
    private static final long MAX_CTX = 4096;

    private void checkPointer(int pc, int baseReg, RegState base, int off, int size) {
        switch (base.type) {
            case SCALAR:
                // A plain number as an address: the engines check it at run time against the run's regions
                // (what the conformance suites' error tests rely on). The kernel refuses it outright.
                return;
            case PTR_TO_MAP_VALUE: {
                if (base.smin <= -MAX_VAR_OFF || base.smax >= MAX_VAR_OFF) {
                    throw reject.at(pc, "R" + baseReg + " unbounded memory access, make sure to bounds check any such access");
                }
                long lo = base.off + base.smin + off, hi = base.off + base.smax + off + size;
                if (base.memSize >= 0 && (lo < 0 || hi > base.memSize)) {
                    throw reject.at(pc, "invalid access to map value, value_size=" + base.memSize + " off=" + lo + " size=" + size);
                }
                return;
            }
            case PTR_TO_PACKET:
                // check_packet_access, for a load of a kernel program type: at a fixed offset, the bytes a comparison
                // with data_end proved; a variable offset, or a load naming no program type (the engines' own
                // tests of their run-time checks), is left to the run-time check (docs/verifier.md)
                if (policy.ctxRules() != null && base.smin == 0 && base.smax == 0 && (base.off + off < 0 || base.off + off + size > base.range)) {
                    throw reject.at(pc, "R" + baseReg + " offset is outside of the packet (off=" + (base.off + off) + " size=" + size
                            + ", a comparison with data_end proved " + base.range + " bytes)");
                }
                return;
            case PTR_TO_PACKET_META: case PTR_TO_MEM:
                return; // checked at run time in both engines
            default:
                throw reject.at(pc, "R" + baseReg + " invalid mem access '" + base.type.logName + "'");
        }
    }

    private void leakCheck(int pc, String reason) {
        if (!policy.allowPtrLeaks()) throw reject.at(pc, reason);
    }

    /** A value loaded from memory: any scalar of the width, zero- or sign-extended. */
    static RegState loadedScalar(int size, boolean signExtend) {
        RegState r = RegState.unknown();
        if (size >= 8) return r;
        long half = 1L << (size * 8 - 1);
        if (signExtend) r.setVar(-half, half - 1);
        else r.setVar(0, 2 * half - 1);
        return r;
    }
}
