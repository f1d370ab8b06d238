package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.LookupInlining;

/**
 * {@code bpf_map_lookup_elem} inlined where r1 is a constant map handle at the call site
 * ({@link InlineArrayLookup}, {@link InlineHashLookup}), as the kernel's {@code map_gen_lookup}:
 * the parts both share. The helper reads the key only after checking it readable; the inline path
 * reads it only when it lies inside the current 512-byte frame ({@code [r10 - 512, r10 - key_size]}),
 * which that check accepts, and otherwise calls the helper as before, which checks, fails or looks
 * up. So r0, the error (kind, pc, address) and memory stay those of the interpreter, which always
 * calls the helper. The map's open word is tested first: a program that runs after its map was
 * closed calls the helper, which refuses it, instead of getting an address in freed memory.
 */
final class InlineLookup {
    private InlineLookup() {}

    /** Emits the inline lookup for {@code target} and returns true, or emits nothing and returns false (then the caller calls). */
    static boolean emit(JitContext c, int pc, LookupInlining.Target target, HelperBinding b) {
        if (target instanceof LookupInlining.Elements array && InlineArrayLookup.enabled()) {
            InlineArrayLookup.emit(c, pc, array, b);
            return true;
        }
        if (target instanceof LookupInlining.HashBuckets hash && InlineHashLookup.enabled() && InlineHashLookup.fits(hash)) {
            InlineHashLookup.emit(c, pc, hash, b);
            return true;
        }
        return false;
    }

    /**
     * The map open and the key (rsi) inside the current frame, else to the helper call: returns the
     * three forward jumps that {@link #callAndJoin} binds there. Clobbers r10.
     */
    static int[] guards(X86Encoder e, LookupInlining.Target t) {
        e.movabs(RegMap.AUX, t.openWord());                                    /* movabs r10, open word */
        e.aluMI(AluOp.CMP, true, Mem.of(RegMap.AUX, 0), 0);                    /* cmp qword [r10], 0 */
        int closed = e.jccForward32(Cond.E);                                   /* je .call (the map was closed) */
        int[] key = inFrame(e, RegMap.x86(2), t.keySize());
        return new int[] {closed, key[0], key[1]};
    }

    /**
     * {@code size} bytes at {@code pointer} inside the current frame ({@code [rbp - 512, rbp - size]}),
     * else to the helper call: returns the two forward jumps there. Clobbers r10.
     */
    static int[] inFrame(X86Encoder e, X86Reg pointer, int size) {
        e.movRR(true, RegMap.AUX, pointer);                                    /* mov r10, pointer */
        e.aluRR(AluOp.SUB, true, RegMap.AUX, X86Reg.RBP);                         /* sub r10, rbp */
        e.aluRI(AluOp.CMP, true, RegMap.AUX, -Limits.STACK_SIZE);              /* cmp r10, -512 */
        int below = e.jccForward32(Cond.L);                                    /* jl .call */
        e.aluRI(AluOp.CMP, true, RegMap.AUX, -size);                           /* cmp r10, -size */
        int past = e.jccForward32(Cond.G);                                     /* jg .call */
        return new int[] {below, past};
    }

    /**
     * rax = the value of slot rax (a u32): {@code values + (slot * cpus + cpu) * stride}. Per-CPU maps
     * take the cpu from the same {@code sched_getcpu} the helper asks (0 when it answers past the
     * possible CPUs, as {@code Cpus.current}); the call clobbers the budget register and the slot, so
     * both are pushed (two pushes keep rsp 16-byte aligned), and so is {@code kept} when not null (twice,
     * for the alignment). Clobbers r10.
     */
    static void valueOfSlot(X86Encoder e, LookupInlining.Target t, X86Reg kept) {
        if (t.cpus() > 1) {
            if (t.currentCpu() != 0) {
                e.push(RegMap.BUDGET);                                         /* push r9 (budget) */
                e.push(X86Reg.RAX);                                               /* push rax (slot) */
                if (kept != null) {
                    e.push(kept);                                              /* push kept */
                    e.push(kept);                                              /* push kept (rsp stays 16-byte aligned) */
                }
                NativeFormEmitter.currentCpu(e, t.currentCpu(), t.cpus());     /* eax = the cpu */
                e.movRR(false, RegMap.AUX, X86Reg.RAX);                           /* mov r10d, eax */
                if (kept != null) {
                    e.pop(kept);                                               /* pop kept */
                    e.pop(kept);                                               /* pop kept */
                }
                e.pop(X86Reg.RAX);                                                /* pop rax */
                e.pop(RegMap.BUDGET);                                          /* pop r9 */
            } else {
                e.aluRR(AluOp.XOR, false, RegMap.AUX, RegMap.AUX);             /* xor r10d, r10d (cpu 0) */
            }
            e.imulRRI(true, X86Reg.RAX, X86Reg.RAX, t.cpus());                       /* imul rax, rax, cpus */
            e.aluRR(AluOp.ADD, true, X86Reg.RAX, RegMap.AUX);                     /* add rax, r10 */
        }
        int stride = t.stride();
        if (Integer.bitCount(stride) == 1) {
            if (stride > 1) e.shiftImm(Shift.SHL, true, X86Reg.RAX, Integer.numberOfTrailingZeros(stride)); /* shl rax, log2(stride) */
        } else {
            e.imulRRI(true, X86Reg.RAX, X86Reg.RAX, stride);                         /* imul rax, rax, stride */
        }
        e.movabs(RegMap.AUX, t.valuesBase());                                  /* movabs r10, values */
        e.aluRR(AluOp.ADD, true, X86Reg.RAX, RegMap.AUX);                         /* add rax, r10 */
    }

    /**
     * The end of an inline lookup: {@code toCall} lead to the helper call (r1 and r2 still as the
     * program set them), {@code toDone} (the inline results, r0 set) past it.
     */
    static void callAndJoin(JitContext c, int pc, HelperBinding b, int[] toCall, int... toDone) {
        for (int j : toCall) c.e.bind32(j);                                     /* .call: */
        CallEmitter.call(c, pc, b);
        for (int j : toDone) c.e.bind32(j);                                     /* .done: */
    }
}
