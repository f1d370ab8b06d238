package dev.bpf4j.jit.compiler;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.LookupInlining;
import dev.bpf4j.runtime.Limits;

import java.util.Optional;

/** Helper calls (a plain SysV call) and bpf-to-bpf calls (budget and depth checked, then call rel32). */
final class CallEmitter {
    private CallEmitter() {}

    static void emit(JitContext c, int pc, Insn i) {
        if (Opcodes.source(i.opcode()) == Opcodes.X) {
            callx(c, pc, i.dst());
            return;
        }
        switch (i.src()) {
            case Opcodes.CALL_HELPER: helper(c, pc, i.imm()); break;
            case Opcodes.PSEUDO_CALL: local(c, pc, pc + 1 + i.imm()); break;
            default: throw c.error(pc, "unsupported call kind src=" + i.src() + " (kfuncs are not supported)");
        }
    }

    private static void helper(JitContext c, int pc, int id) {
        HelperBinding b = c.helpers.get(id);
        if (b == null) throw c.error(pc, "unknown helper id " + id);
        if (b.fastPath() != null && (InlineProbeRead.emit(c, pc, b) || InlineRingBuf.emit(c, pc, b))) return;
        // the inline forms read the key (and an update's value) from the current frame: only stack pointers may be read there
        boolean stackArgs = c.aux == null || (c.aux.argTouchesFrames(pc, 2) && (id != HelperIds.MAP_UPDATE_ELEM || c.aux.argTouchesFrames(pc, 3)));
        Optional<LookupInlining.Target> target = b.lookupInlining() != null && c.callR1.knows(pc) && stackArgs
                ? b.lookupInlining().targetFor(c.callR1.r1(pc)) : Optional.empty();
        if ((id == HelperIds.SPIN_LOCK || id == HelperIds.SPIN_UNLOCK) && InlineSpinLock.emit(c, pc, b)) return;
        if (target.isEmpty() || !inline(c, pc, target.get(), b)) call(c, pc, b);
    }

    /** The inline form of a map helper whose r1 is a constant map (the helper id says which), or false to call it. */
    private static boolean inline(JitContext c, int pc, LookupInlining.Target target, HelperBinding b) {
        long r1 = c.callR1.r1(pc);
        switch (b.id()) {
            case HelperIds.MAP_UPDATE_ELEM: return InlineArrayUpdate.emit(c, pc, target, b) || InlineHashUpdate.emit(c, pc, target, b, r1);
            case HelperIds.MAP_DELETE_ELEM: return InlineHashDelete.emit(c, pc, target, b, r1);
            default: return InlineLookup.emit(c, pc, target, b);
        }
    }

    /**
     * callx: the Java bridge with the register's value as the helper id (all 64 bits: the bridge looks
     * it up among the load's helpers when the call runs, and an unknown id fails there, at this pc).
     */
    private static void callx(JitContext c, int pc, int reg) {
        HelperBinding bridge = c.helpers.get(HelperBinding.CALLX);
        if (bridge == null) throw c.error(pc, "callx without the bridge binding");
        X86Encoder e = c.e;
        e.store(8, JitContext.env(EnvLayout.HELPER_ID), RegMap.x86(reg)); /* mov [r12 + HELPER_ID], reg */
        call(c, pc, bridge);
    }

    /** The call itself: r1-r5 are the SysV arguments, the result comes back in rax (BPF r0). */
    static void call(JitContext c, int pc, HelperBinding b) {
        X86Encoder e = c.e;
        int id = b.id();
        e.storeImm(8, JitContext.env(EnvLayout.CUR_PC), pc);          /* mov qword [r12 + CUR_PC], pc */
        e.store(8, JitContext.env(EnvLayout.CUR_RBP), X86Reg.RBP);       /* mov [r12 + CUR_RBP], rbp */
        e.store(8, JitContext.env(EnvLayout.BUDGET), RegMap.BUDGET);  /* mov [r12 + BUDGET], r9 (callbacks spend it) */
        if (b.javaBridge()) {
            // The bridge gets the env block (its 6th argument) and reads the id from it: a run whose
            // block native code built (a probe trampoline) is found from the block, not a thread-local.
            // (callx stored its register there already.)
            if (id != HelperBinding.CALLX) e.storeImm(8, JitContext.env(EnvLayout.HELPER_ID), id); /* mov qword [r12 + HELPER_ID], id */
            e.movRR(true, RegMap.BRIDGE_ENV, RegMap.ENV);             /* mov r9, r12 */
        }
        e.movabs(RegMap.AUX2, b.address());                           /* movabs r11, helper */
        e.callR(RegMap.AUX2);                                         /* call r11 */
        e.load(true, RegMap.BUDGET, JitContext.env(EnvLayout.BUDGET)); /* mov r9, [r12 + BUDGET] */
        e.aluMI(AluOp.CMP, true, JitContext.env(EnvLayout.STATUS), 0); /* cmp qword [r12 + STATUS], 0 */
        e.jccRel32(Cond.NE, c.stub(Stub.ERROR_EXIT));                 /* jne error_exit */
    }

    private static void local(JitContext c, int pc, int target) {
        X86Encoder e = c.e;
        c.budgetEvent(pc);
        e.aluMI(AluOp.CMP, true, JitContext.env(EnvLayout.DEPTH), Limits.MAX_CALL_FRAMES); /* cmp qword [r12 + DEPTH], 8 */
        int ok = e.jccForward8(Cond.B);                               /* jb .ok */
        c.raise(Stub.RAISE_CALL_DEPTH, pc);
        e.bind(ok);                                                   /* .ok: */
        e.aluMI(AluOp.ADD, true, JitContext.env(EnvLayout.DEPTH), 1); /* add qword [r12 + DEPTH], 1 */
        e.callRel32(c.functionEntry(target));                         /* call subprogram */
        e.aluMI(AluOp.SUB, true, JitContext.env(EnvLayout.DEPTH), 1); /* sub qword [r12 + DEPTH], 1 */
    }
}
