package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.unwind.CfaRule;

import java.util.ArrayList;
import java.util.List;

/** The shared routines after the functions: error exit, raise paths, the slow memory check. */
final class StubEmitter {
    private StubEmitter() {}

    static void emit(JitContext c) {
        CallbackEntryEmitter.emit(c);
        c.stubs.put(Stub.ERROR_EXIT, c.pos());
        FrameEmitter.errorExit(c);
        raise(c, Stub.RAISE_BUDGET, EnvLayout.KIND_BUDGET);
        raise(c, Stub.RAISE_CALL_DEPTH, EnvLayout.KIND_CALL_DEPTH);
        raiseMisaligned(c);
        memCheck(c);
    }

    /** Jumped to from a function body with r11 = pc: rbp is still that function's frame. */
    private static void raise(JitContext c, Stub s, long kind) {
        X86Encoder e = c.e;
        int begin = c.pos();
        c.stubs.put(s, begin);
        e.storeImm(8, JitContext.env(EnvLayout.ERR_KIND), (int) kind);                 /* mov qword [r12 + ERR_KIND], kind */
        e.store(8, JitContext.env(EnvLayout.ERR_DESC), RegMap.AUX2);                   /* mov [r12 + ERR_DESC], r11 */
        e.storeImm(8, JitContext.env(EnvLayout.STATUS), (int) EnvLayout.STATUS_NATIVE_ERROR); /* mov qword [r12 + STATUS], 1 */
        e.jmpRel32(c.stubs.get(Stub.ERROR_EXIT));                                      /* jmp error_exit */
        c.stubRows.add(new int[]{begin, c.pos(), CfaRule.FRAME_POINTER.ordinal()});
    }

    /** Jumped to with r10 = address, r11d = access descriptor of a misaligned atomic. */
    private static void raiseMisaligned(JitContext c) {
        X86Encoder e = c.e;
        int begin = c.pos();
        c.stubs.put(Stub.RAISE_MISALIGNED, begin);
        e.store(8, JitContext.env(EnvLayout.ERR_ADDR), RegMap.AUX);                    /* mov [r12 + ERR_ADDR], r10 */
        e.store(8, JitContext.env(EnvLayout.ERR_DESC), RegMap.AUX2);                   /* mov [r12 + ERR_DESC], r11 */
        e.storeImm(8, JitContext.env(EnvLayout.ERR_KIND), (int) EnvLayout.KIND_MISALIGNED_ATOMIC); /* mov qword [r12 + ERR_KIND], 4 */
        e.storeImm(8, JitContext.env(EnvLayout.STATUS), (int) EnvLayout.STATUS_NATIVE_ERROR); /* mov qword [r12 + STATUS], 1 */
        e.jmpRel32(c.stubs.get(Stub.ERROR_EXIT));                                      /* jmp error_exit */
        c.stubRows.add(new int[]{begin, c.pos(), CfaRule.FRAME_POINTER.ordinal()});
    }

    /**
     * {@code mem_check}: r10 = address, r11d = access descriptor. Returns (all registers but r10/r11
     * and flags kept) when {@code [r10, r10 + size)} lies in one region of the run with the needed
     * permission, caching that region for the inline fast path, or in one live BPF frame (walking
     * the rbp chain up to the entry frame) unless the descriptor says NO_FRAMES (an access the
     * verifier did not type as a stack pointer). Otherwise records OUT_OF_BOUNDS and leaves the run.
     * It has its own rbp frame, so unwinding from inside it is exact.
     */
    private static void memCheck(JitContext c) {
        X86Encoder e = c.e;
        int begin = c.pos();
        c.stubs.put(Stub.MEM_CHECK, begin);
        X86Reg addr = RegMap.AUX, desc = RegMap.AUX2;
        e.push(X86Reg.RBP);                                                  /* push rbp */
        int afterPush = c.pos();
        e.movRR(true, X86Reg.RBP, X86Reg.RSP);                                  /* mov rbp, rsp */
        int fp = c.pos();
        e.push(X86Reg.RAX);                                                  /* push rax */
        e.push(X86Reg.RCX);                                                  /* push rcx */
        e.push(X86Reg.RDX);                                                  /* push rdx */
        List<Integer> toFail = new ArrayList<>(), toDone = new ArrayList<>();
        e.movRR(false, X86Reg.RAX, desc);                                    /* mov eax, r11d */
        e.aluRI(AluOp.AND, false, X86Reg.RAX, AccessDescriptor.SIZE_MASK);   /* and eax, 15 (size) */
        e.movRR(true, X86Reg.RDX, addr);                                     /* mov rdx, r10 */
        e.aluRR(AluOp.ADD, true, X86Reg.RDX, X86Reg.RAX);                       /* add rdx, rax (end) */
        toFail.add(e.jccForward32(Cond.B));                                /* jc .fail (wraps) */
        e.load(true, X86Reg.RCX, JitContext.env(EnvLayout.REGION_COUNT));   /* mov rcx, [r12 + REGION_COUNT] */
        e.lea(X86Reg.RAX, JitContext.env(EnvLayout.REGIONS));                /* lea rax, [r12 + REGIONS] */
        int loop = c.pos();                                               /* .region: */
        e.testRR(true, X86Reg.RCX, X86Reg.RCX);                                 /* test rcx, rcx */
        int toFrames = e.jccForward32(Cond.E);                             /* je .frames */
        e.aluRM(AluOp.CMP, true, addr, Mem.of(X86Reg.RAX, 0));               /* cmp r10, [rax] (start) */
        int next1 = e.jccForward32(Cond.B);                                /* jb .next */
        e.aluRM(AluOp.CMP, true, X86Reg.RDX, Mem.of(X86Reg.RAX, EnvLayout.REGION_END)); /* cmp rdx, [rax + 8] (end) */
        int next2 = e.jccForward32(Cond.A);                                /* ja .next */
        e.testRI(false, desc, AccessDescriptor.WRITE_BIT);                /* test r11d, WRITE */
        int hitRead = e.jccForward8(Cond.E);                              /* je .hit_read */
        e.aluMI(AluOp.CMP, true, Mem.of(X86Reg.RAX, EnvLayout.REGION_WRITABLE), 0); /* cmp qword [rax + 16], 0 */
        int next3 = e.jccForward8(Cond.E);                                /* je .next */
        cacheRegion(e, EnvLayout.FAST_W_START, EnvLayout.FAST_W_LAST, toDone);
        e.bind(hitRead);                                                  /* .hit_read: */
        cacheRegion(e, EnvLayout.FAST_R_START, EnvLayout.FAST_R_LAST, toDone);
        e.bind32(next1); e.bind32(next2); e.bind(next3);                      /* .next: */
        e.aluRI(AluOp.ADD, true, X86Reg.RAX, EnvLayout.REGION_SIZE);         /* add rax, 24 */
        e.aluRI(AluOp.SUB, true, X86Reg.RCX, 1);                             /* sub rcx, 1 */
        e.jmpTo(loop);                                                     /* jmp .region */
        e.bind32(toFrames);                                                 /* .frames: */
        e.testRI(false, desc, AccessDescriptor.NO_FRAMES_BIT);           /* test r11d, NO_FRAMES */
        int noFrames = e.jccForward32(Cond.NE);                            /* jne .scratch (not a stack pointer: no frame) */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RBP, 0));                        /* mov rax, [rbp] (caller's frame) */
        int frame = c.pos();                                              /* .frame: */
        e.lea(X86Reg.RCX, Mem.of(X86Reg.RAX, -Limits.STACK_SIZE));              /* lea rcx, [rax - 512] */
        e.aluRR(AluOp.CMP, true, addr, X86Reg.RCX);                          /* cmp r10, rcx */
        int outer1 = e.jccForward8(Cond.B);                               /* jb .outer */
        e.aluRR(AluOp.CMP, true, X86Reg.RDX, X86Reg.RAX);                       /* cmp rdx, rax */
        toDone.add(e.jccForward32(Cond.BE));                               /* jbe .done (inside this frame) */
        e.bind(outer1);                                                   /* .outer: */
        e.aluRM(AluOp.CMP, true, X86Reg.RAX, JitContext.env(EnvLayout.ENTRY_RBP)); /* cmp rax, [r12 + ENTRY_RBP] */
        int toScratch = e.jccForward32(Cond.E);                            /* je .scratch (entry frame was the last) */
        e.load(true, X86Reg.RAX, Mem.of(X86Reg.RAX, 0));                        /* mov rax, [rax] (next frame out) */
        e.jmpTo(frame);                                                    /* jmp .frame */
        e.bind32(toScratch);                                                /* .scratch: */
        e.bind32(noFrames);
        scratchCheck(e, toFail, toDone);
        for (int p : toDone) e.bind32(p);                                   /* .done: */
        e.pop(X86Reg.RDX);                                                   /* pop rdx */
        e.pop(X86Reg.RCX);                                                   /* pop rcx */
        e.pop(X86Reg.RAX);                                                   /* pop rax */
        int leave = c.pos();
        e.leave();                                                        /* leave */
        e.ret();                                                          /* ret */
        for (int p : toFail) e.bind32(p);                                   /* .fail: */
        e.store(8, JitContext.env(EnvLayout.ERR_ADDR), addr);             /* mov [r12 + ERR_ADDR], r10 */
        e.store(8, JitContext.env(EnvLayout.ERR_DESC), desc);             /* mov [r12 + ERR_DESC], r11 */
        e.storeImm(8, JitContext.env(EnvLayout.ERR_KIND), (int) EnvLayout.KIND_OUT_OF_BOUNDS); /* mov qword [r12 + ERR_KIND], 1 */
        e.storeImm(8, JitContext.env(EnvLayout.STATUS), (int) EnvLayout.STATUS_NATIVE_ERROR); /* mov qword [r12 + STATUS], 1 */
        e.jmpRel32(c.stubs.get(Stub.ERROR_EXIT));                         /* jmp error_exit */
        int end = c.pos();
        c.stubRows.add(new int[]{begin, afterPush, CfaRule.RETURN_AT_SP.ordinal()});
        c.stubRows.add(new int[]{afterPush, fp, CfaRule.RETURN_AT_SP_PLUS_8.ordinal()});
        c.stubRows.add(new int[]{fp, leave + 1, CfaRule.FRAME_POINTER.ordinal()});
        c.stubRows.add(new int[]{leave + 1, leave + 2, CfaRule.RETURN_AT_SP.ordinal()});
        c.stubRows.add(new int[]{leave + 2, end, CfaRule.FRAME_POINTER.ordinal()});
    }

    /**
     * A read may also hit a live helper scratch buffer: buffer k = (addr - base) / 512 must hold the
     * whole access and its depth bit k + 1 must be set in SCRATCH_LIVE. rax, rcx are free; rdx = end.
     */
    private static void scratchCheck(X86Encoder e, List<Integer> toFail, List<Integer> toDone) {
        X86Reg addr = RegMap.AUX, desc = RegMap.AUX2;
        e.testRI(false, desc, AccessDescriptor.WRITE_BIT);                /* test r11d, WRITE */
        toFail.add(e.jccForward32(Cond.NE));                               /* jne .fail (buffers are read-only) */
        e.movRR(true, X86Reg.RAX, addr);                                     /* mov rax, r10 */
        e.aluRM(AluOp.SUB, true, X86Reg.RAX, JitContext.env(EnvLayout.SCRATCH_BASE)); /* sub rax, [r12 + SCRATCH_BASE] */
        toFail.add(e.jccForward32(Cond.B));                                /* jb .fail (below the buffers) */
        e.aluRI(AluOp.CMP, true, X86Reg.RAX, Limits.STACK_SIZE * Limits.MAX_CALL_FRAMES); /* cmp rax, 4096 */
        toFail.add(e.jccForward32(Cond.AE));                               /* jae .fail (past them) */
        e.movRR(true, X86Reg.RCX, X86Reg.RAX);                                  /* mov rcx, rax */
        e.shiftImm(Shift.SHR, true, X86Reg.RCX, 9);                          /* shr rcx, 9 (k) */
        e.movRR(true, X86Reg.RAX, X86Reg.RDX);                                  /* mov rax, rdx */
        e.aluRM(AluOp.SUB, true, X86Reg.RAX, JitContext.env(EnvLayout.SCRATCH_BASE)); /* sub rax, [r12 + SCRATCH_BASE] */
        e.aluRI(AluOp.SUB, true, X86Reg.RAX, 1);                             /* sub rax, 1 (last byte) */
        e.shiftImm(Shift.SHR, true, X86Reg.RAX, 9);                          /* shr rax, 9 */
        e.aluRR(AluOp.CMP, true, X86Reg.RAX, X86Reg.RCX);                       /* cmp rax, rcx */
        toFail.add(e.jccForward32(Cond.NE));                               /* jne .fail (straddles two buffers) */
        e.aluRI(AluOp.ADD, false, X86Reg.RCX, 1);                            /* add ecx, 1 (depth) */
        e.load(true, X86Reg.RAX, JitContext.env(EnvLayout.SCRATCH_LIVE));   /* mov rax, [r12 + SCRATCH_LIVE] */
        e.shiftCl(Shift.SHR, true, X86Reg.RAX);                              /* shr rax, cl */
        e.testRI(false, X86Reg.RAX, 1);                                      /* test eax, 1 */
        toFail.add(e.jccForward32(Cond.E));                                /* je .fail (not live) */
        toDone.add(e.jmpForward32());                                      /* jmp .done */
    }

    /**
     * rax points at the region that allowed the access: make it the fast-path region when it is at
     * least 8 bytes long (the fast path checks {@code start <= addr <= end - 8}), then return.
     */
    private static void cacheRegion(X86Encoder e, int startField, int lastField, List<Integer> toDone) {
        e.load(true, X86Reg.RCX, Mem.of(X86Reg.RAX, EnvLayout.REGION_END));     /* mov rcx, [rax + 8] (end) */
        e.aluRM(AluOp.SUB, true, X86Reg.RCX, Mem.of(X86Reg.RAX, 0));            /* sub rcx, [rax] (length) */
        e.aluRI(AluOp.CMP, true, X86Reg.RCX, 8);                             /* cmp rcx, 8 */
        toDone.add(e.jccForward32(Cond.B));                                /* jb .done */
        e.load(true, X86Reg.RCX, Mem.of(X86Reg.RAX, 0));                        /* mov rcx, [rax] */
        e.store(8, JitContext.env(startField), X86Reg.RCX);                  /* mov [r12 + FAST_START], rcx */
        e.load(true, X86Reg.RCX, Mem.of(X86Reg.RAX, EnvLayout.REGION_END));     /* mov rcx, [rax + 8] */
        e.aluRI(AluOp.SUB, true, X86Reg.RCX, 8);                             /* sub rcx, 8 */
        e.store(8, JitContext.env(lastField), X86Reg.RCX);                   /* mov [r12 + FAST_LAST], rcx */
        toDone.add(e.jmpForward32());                                      /* jmp .done */
    }
}
