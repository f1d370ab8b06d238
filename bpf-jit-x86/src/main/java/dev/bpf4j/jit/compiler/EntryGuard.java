package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Reg;
import dev.bpf4j.jit.x86.X86Encoder;

/**
 * The check at the main entry that picks the guarded copy ({@link GuardedCopy}): its proofs assume
 * that the run's r1 = data and r2 = len describe bytes {@code [data, data + len)} lying inside one
 * region of the run (writable when the copy stores through them) and that {@code data + len}
 * neither wraps nor reaches {@code 2^63}. That is a property of the RunContext, not of the program,
 * so it is tested on every entry from Java or a probe; when it fails the run takes the checked body
 * (pc 0 right after the guard, which is also where tail calls land: their r1/r2 are not checked).
 * Uses only rax (r0, not yet initialised), r10 and r11.
 */
final class EntryGuard {
    private EntryGuard() {}

    static void emit(JitContext c) {
        X86Encoder e = c.e;
        Reg data = RegMap.x86(1), len = RegMap.x86(2), end = Reg.RAX, count = RegMap.AUX, region = RegMap.AUX2;
        e.movRR(true, end, data);                                          /* mov rax, rdi */
        e.aluRR(AluOp.ADD, true, end, len);                                /* add rax, rsi (data + len) */
        int wraps = e.jccForward8(Cond.B);                                 /* jc .checked */
        int high = e.jccForward8(Cond.S);                                  /* js .checked (reaches 2^63) */
        e.load(true, count, JitContext.env(EnvLayout.REGION_COUNT));       /* mov r10, [r12 + REGION_COUNT] */
        e.lea(region, JitContext.env(EnvLayout.REGIONS));                   /* lea r11, [r12 + REGIONS] */
        int loop = e.position();                                           /* .region: */
        e.aluRI(AluOp.SUB, true, count, 1);                                /* sub r10, 1 */
        int none = e.jccForward8(Cond.B);                                  /* jb .checked (no region left) */
        e.aluRM(AluOp.CMP, true, data, Mem.of(region, 0));                 /* cmp rdi, [r11] (start) */
        int next1 = e.jccForward8(Cond.B);                                 /* jb .next */
        e.aluRM(AluOp.CMP, true, end, Mem.of(region, EnvLayout.REGION_END)); /* cmp rax, [r11 + 8] (end) */
        int next2 = e.jccForward8(Cond.A);                                 /* ja .next */
        int next3 = -1;
        if (c.guarded.writable()) {
            e.aluMI(AluOp.CMP, true, Mem.of(region, EnvLayout.REGION_WRITABLE), 0); /* cmp qword [r11 + 16], 0 */
            next3 = e.jccForward8(Cond.E);                                 /* je .next */
        }
        e.jmpRel32(c.copyEntry());                                         /* jmp guarded copy, pc 0 */
        e.bind(next1); e.bind(next2);                                      /* .next: */
        if (next3 >= 0) e.bind(next3);
        e.aluRI(AluOp.ADD, true, region, EnvLayout.REGION_SIZE);           /* add r11, 24 */
        e.jmpTo(loop);                                                     /* jmp .region */
        e.bind(wraps); e.bind(high); e.bind(none);                         /* .checked: (pc 0 follows) */
    }
}
