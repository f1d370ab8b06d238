package dev.bpf4j.analysis;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

/**
 * Loads, stores and atomics over {@link AbstractState}. An 8-byte store at an exact, aligned frame
 * offset remembers the stored value in that slot (a spilled pointer reloads as a pointer); any
 * other store into the frame forgets the slots it may touch, and a store through a pointer not
 * known to be in the frame forgets every slot (it may alias the frame). In the ctx form of
 * {@link RegionProof} a 4-byte load of the ctx's data or data_end field gives the packet pointer or
 * the end, until any store, atomic or call (which might change those fields).
 */
final class MemoryTransfer {
    private MemoryTransfer() {}

    /** Returns PACKET or END when the load read the ctx's data or data_end field (ctx form), else SCALAR. */
    static byte load(AbstractState s, Insn i, boolean inFrame) {
        int size = Opcodes.sizeBytes(i.opcode());
        int base = i.src();
        boolean sx = Opcodes.mode(i.opcode()) == Opcodes.MEMSX;
        if (inFrame && size == 8 && s.lo(base) == s.hi(base)) {
            int slot = AbstractState.slotAt(s.lo(base) + i.off());
            if (slot >= 0) {
                s.copyValue(i.dst(), s, AbstractState.slotIndex(slot));
                return AbstractState.SCALAR;
            }
        }
        if (s.kind(base) == AbstractState.CTX && s.lo(base) == s.hi(base) && size == 4 && !sx) {
            byte field = s.facts().ctxField(s.lo(base) + i.off()); // a u32 packet pointer, zero-extended
            if (field == AbstractState.PACKET) { s.setPacket(i.dst(), 0, 0, 0); return field; }
            if (field == AbstractState.END) { s.setEnd(i.dst()); return field; }
        }
        if (size == 8) s.setTop(i.dst());
        else if (sx) s.setScalar(i.dst(), -(1L << (8 * size - 1)), (1L << (8 * size - 1)) - 1);
        else s.setScalar(i.dst(), 0, (1L << (8 * size)) - 1);
        return AbstractState.SCALAR;
    }

    static void store(AbstractState s, Insn i, boolean inFrame) {
        s.ctxMayChange(); // any store might reach the ctx's data/data_end (the guard does not check aliasing)
        int size = Opcodes.sizeBytes(i.opcode());
        int base = i.dst();
        if (!inFrame) {
            s.clobberAllSlots();
            return;
        }
        long lo = s.lo(base) + i.off(), hi = s.hi(base) + i.off();
        int slot = lo == hi && size == 8 ? AbstractState.slotAt(lo) : -1;
        if (slot < 0) {
            s.clobberSlots(lo, hi, size);
            return;
        }
        int idx = AbstractState.slotIndex(slot);
        if (i.cls() == Opcodes.ST) s.setScalar(idx, i.imm(), i.imm());
        else s.copyValue(idx, s, i.src());
    }

    static void atomic(AbstractState s, Insn i) {
        s.ctxMayChange();
        int size = Opcodes.sizeBytes(i.opcode());
        int base = i.dst();
        if (s.isFrame(base)) s.clobberSlots(s.lo(base) + i.off(), s.hi(base) + i.off(), size);
        else s.clobberAllSlots();
        if (i.imm() == Opcodes.CMPXCHG) s.setTop(0);
        else if ((i.imm() & Opcodes.FETCH) != 0) s.setTop(i.src());
    }
}
