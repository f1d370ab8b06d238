package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.PacketContext;

import java.util.ArrayList;
import java.util.List;

/**
 * The check at the main entry that picks the guarded copy ({@link GuardedCopy}). Its proofs assume
 * that the run's packet {@code [data, end)} lies inside one region of the run (writable when the copy
 * stores through it) and that {@code end} neither wraps nor reaches {@code 2^63}:
 * <ul>
 * <li>data-buffer form: data = r1, end = r1 + r2;</li>
 * <li>ctx form ({@link PacketContext}): r1 = ctx, whose bytes {@code [ctx, ctx + extent)} must lie
 * inside one region (read here, and proven loads read them), data and end are its zero-extended
 * u32 fields and {@code data <= end} (then end is below 2^32).</li>
 * </ul>
 * Those are properties of the RunContext, not of the program, so they are tested on every entry from
 * Java or a probe; when they fail the run takes the checked body (pc 0 right after the guard, which
 * is also where tail calls land: their r1/r2 are not checked). Uses only rax (r0, not yet
 * initialised), r10, r11 and, in the ctx form, r2's register (not an argument there).
 */
final class EntryGuard {
    private EntryGuard() {}

    static void emit(JitContext c) {
        if (c.guarded.ctx() == null) dataBuffer(c);
        else ctx(c, c.guarded.ctx());
    }

    /** data = r1, end = r1 + r2. */
    private static void dataBuffer(JitContext c) {
        X86Encoder e = c.e;
        X86Reg data = RegMap.x86(1), end = X86Reg.RAX;
        e.movRR(true, end, data);                                          /* mov rax, rdi */
        e.aluRR(AluOp.ADD, true, end, RegMap.x86(2));                      /* add rax, rsi (data + len) */
        int wraps = e.jccForward8(Cond.B);                                 /* jc .checked */
        int high = e.jccForward8(Cond.S);                                  /* js .checked (reaches 2^63) */
        int none = scan(e, data, end, c.guarded.writable(), () -> e.jmpRel32(c.copyEntry())); /* jmp guarded copy, pc 0 */
        e.bind(wraps); e.bind(high); e.bind(none);                         /* .checked: (pc 0 follows) */
    }

    /**
     * r1 = ctx holding u32 data and data_end. The copy's loads of those fields before anything
     * could change them take the values checked here (kept in the env block), not a second read of
     * the ctx, which another thread could have changed in between.
     */
    private static void ctx(JitContext c, PacketContext ctx) {
        X86Encoder e = c.e;
        X86Reg r1 = RegMap.x86(1), data = RegMap.x86(2), end = X86Reg.RAX;
        List<Integer> checked = new ArrayList<>();                         /* rel32 jumps to .checked */
        e.movRR(true, end, r1);                                            /* mov rax, rdi */
        e.aluRI(AluOp.ADD, true, end, ctx.extent());                       /* add rax, extent */
        checked.add(e.jccForward32(Cond.B));                               /* jc .checked */
        int[] found = new int[1];
        int none = scan(e, r1, end, false, () -> found[0] = e.jmpForward8()); /* the fields inside a region: jmp .fields */
        e.bind(none);
        checked.add(e.jmpForward32());                                     /* jmp .checked */
        e.bind(found[0]);                                                  /* .fields: */
        e.load(false, data, Mem.of(r1, ctx.dataOffset()));                 /* mov esi, [rdi + data] */
        e.load(false, end, Mem.of(r1, ctx.dataEndOffset()));               /* mov eax, [rdi + data_end] */
        e.aluRR(AluOp.CMP, true, data, end);                               /* cmp rsi, rax */
        checked.add(e.jccForward32(Cond.A));                               /* ja .checked (data > data_end) */
        none = scan(e, data, end, c.guarded.writable(), () -> {
            e.store(8, JitContext.env(EnvLayout.CTX_DATA), data);          /* mov [r12 + CTX_DATA], rsi */
            e.store(8, JitContext.env(EnvLayout.CTX_DATA_END), end);       /* mov [r12 + CTX_DATA_END], rax */
            e.jmpRel32(c.copyEntry());                                     /* jmp guarded copy, pc 0 */
        });
        e.bind(none);
        for (int at : checked) e.bind32(at);                               /* .checked: (pc 0 follows) */
    }

    /**
     * Walks the env block's region table (what {@code mem_check} reads) for one region holding
     * {@code [start, end)}, writable when asked, and emits {@code found} for it; returns the forward
     * jump taken when no region holds it.
     */
    private static int scan(X86Encoder e, X86Reg start, X86Reg end, boolean writable, Runnable found) {
        X86Reg count = RegMap.AUX, region = RegMap.AUX2;
        e.load(true, count, JitContext.env(EnvLayout.REGION_COUNT));       /* mov r10, [r12 + REGION_COUNT] */
        e.lea(region, JitContext.env(EnvLayout.REGIONS));                   /* lea r11, [r12 + REGIONS] */
        int loop = e.position();                                           /* .region: */
        e.aluRI(AluOp.SUB, true, count, 1);                                /* sub r10, 1 */
        int none = e.jccForward8(Cond.B);                                  /* jb .none */
        e.aluRM(AluOp.CMP, true, start, Mem.of(region, 0));                /* cmp start, [r11] (region start) */
        int next1 = e.jccForward8(Cond.B);                                 /* jb .next */
        e.aluRM(AluOp.CMP, true, end, Mem.of(region, EnvLayout.REGION_END)); /* cmp end, [r11 + 8] (region end) */
        int next2 = e.jccForward8(Cond.A);                                 /* ja .next */
        int next3 = -1;
        if (writable) {
            e.aluMI(AluOp.CMP, true, Mem.of(region, EnvLayout.REGION_WRITABLE), 0); /* cmp qword [r11 + 16], 0 */
            next3 = e.jccForward8(Cond.E);                                 /* je .next */
        }
        found.run();
        e.bind(next1); e.bind(next2);                                      /* .next: */
        if (next3 >= 0) e.bind(next3);
        e.aluRI(AluOp.ADD, true, region, EnvLayout.REGION_SIZE);           /* add r11, 24 */
        e.jmpTo(loop);                                                     /* jmp .region */
        return none;
    }
}
