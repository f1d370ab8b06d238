package dev.bpf4j.verifier;

/**
 * Collects {@link InsnAux} while the verifier explores paths, and refuses an instruction whose
 * paths disagree in a way no engine could honour ({@code save_aux_ptr_type} in the kernel):
 * <ul>
 *   <li>a ctx pointer on one path and another pointer on another, as Linux refuses it (ctx
 *       accesses are rewritten per instruction);</li>
 *   <li>a stack pointer on one path and, on another, a pointer whose access is left to the run-time
 *       check (the conformance block, packet, ring-buffer memory, a map value of unknown size):
 *       the first may touch a frame, the second must not, and the engines decide per instruction.</li>
 * </ul>
 */
final class InsnAuxRecorder {
    private static final int STACK = InsnAux.bit(RegType.PTR_TO_STACK), CTX = InsnAux.bit(RegType.PTR_TO_CTX),
            SCALAR = InsnAux.bit(RegType.SCALAR);

    private final Reject reject;
    private final int[] baseTypes;
    private final int[] argTypes;
    private final boolean[] proven;
    /** Per pc: some path reached the access through a non-stack pointer that the run-time check covers. */
    private final boolean[] checkedPointer;
    private final boolean[] reached;
    /** Per helper call pc: bits 1-5, the argument registers some explored path had set there. */
    private final int[] setArgs;
    private final boolean[] called;

    InsnAuxRecorder(Reject reject, int slots) {
        this.reject = reject;
        this.baseTypes = new int[slots];
        this.argTypes = new int[slots * 6];
        this.proven = new boolean[slots];
        this.checkedPointer = new boolean[slots];
        this.reached = new boolean[slots];
        this.setArgs = new int[slots];
        this.called = new boolean[slots];
    }

    /** r1-r5 at a helper call: which of them some path set (the rest the engines pass as 0, {@link InsnAux#unsetArgs}). */
    void callRegs(int pc, RegState[] regs) {
        for (int r = 1; r <= 5; r++) if (regs[r] != null && regs[r].type != RegType.NOT_INIT) setArgs[pc] |= 1 << r;
        called[pc] = true;
    }

    /** A load, store or atomic of {@code size} bytes at {@code base + off} (register {@code baseReg}), once its checks passed. */
    void access(int pc, int baseReg, RegState base, int off, int size) {
        int t = InsnAux.bit(base.type);
        int before = baseTypes[pc];
        int after = before | t;
        if (after != before && before != 0 && (after & CTX) != 0 && (after & ~(CTX | SCALAR)) != 0) {
            throw mismatch(pc, "R" + baseReg, before, t);
        }
        boolean isProven = base.type == RegType.PTR_TO_STACK || (base.type == RegType.PTR_TO_MAP_VALUE && base.memSize >= 0)
                || inPacketRange(base, off, size);
        boolean checked = base.type.isPointer() && !isProven;
        if ((after & STACK) != 0 && (checked || checkedPointer[pc])) throw mismatch(pc, "R" + baseReg, before, t);
        baseTypes[pc] = after;
        checkedPointer[pc] |= checked;
        proven[pc] = reached[pc] ? proven[pc] && isProven : isProven;
        reached[pc] = true;
    }

    /** A packet access inside the bytes a comparison with the packet's end proved there ({@link PacketRange}). */
    private static boolean inPacketRange(RegState base, int off, int size) {
        if (base.type != RegType.PTR_TO_PACKET || base.smin < 0 || base.smax >= MemoryAccess.MAX_VAR_OFF) return false;
        if (base.off + base.smin + off < 0) return false;
        if (base.off + base.smax + off + size <= base.range) return true;
        // past the variable part its id shares, within what a comparison of that id proved
        return base.id != 0 && base.off + off >= 0 && base.off + off + size <= base.varRange;
    }

    /** The first {@code count} argument registers of a helper call at {@code pc} (those its prototype reads). */
    void helperArgs(int pc, RegState[] regs, int count) {
        for (int r = 1; r <= count; r++) {
            RegState v = regs[r];
            if (v == null || v.type == RegType.NOT_INIT) continue;
            int t = InsnAux.bit(v.type);
            int before = argTypes[pc * 6 + r], after = before | t;
            if ((after & STACK) != 0 && (after & ~(STACK | SCALAR)) != 0) throw mismatch(pc, "R" + r, before, t);
            argTypes[pc * 6 + r] = after;
        }
    }

    private VerifierException mismatch(int pc, String reg, int before, int now) {
        return reject.at(pc, "same insn cannot be used with different pointers (" + reg + " is " + InsnAux.names(now)
                + " here, " + InsnAux.names(before) + " on another path; only a stack pointer may reach an engine's frames)");
    }

    InsnAux build() {
        int[] unset = new int[setArgs.length];
        boolean any = false;
        for (int pc = 0; pc < unset.length; pc++) {
            if (called[pc]) unset[pc] = ~setArgs[pc] & InsnAux.ARG_REGS;
            any |= unset[pc] != 0;
        }
        return new InsnAux(baseTypes, argTypes, proven, any ? unset : null);
    }
}
