package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.Reg;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.ArrayLookupInlining;
import dev.bpf4j.runtime.Limits;

/**
 * {@code bpf_map_lookup_elem} on an ARRAY or PERCPU_ARRAY map whose handle is a constant at the call site, inlined
 * as the kernel's {@code array_map_gen_lookup} does: {@code index < max_entries ? base + index *
 * stride : NULL}, with no call (a Java helper call costs ≈130 ns through the jffi closure). The
 * helper reads the key only after checking it readable; the inline path reads it only when it lies
 * inside the current 512-byte frame ({@code [r10 - 512, r10 - key_size]}), which that check
 * accepts, and otherwise calls the helper as before, which checks, fails or looks up. So r0, the
 * error (kind, pc, address) and memory stay those of the interpreter, which always calls the helper.
 *
 * The map's open word is tested first: a program that runs after its map was closed calls the
 * helper, which refuses it as the interpreter does, instead of getting an address in freed values.
 *
 * <pre>
 *   movabs r10, open; cmp qword [r10], 0; je .call
 *   mov r10, rsi; sub r10, rbp          ; key - r10
 *   cmp r10, -512; jl .call
 *   cmp r10, -4;   jg .call
 *   mov eax, [rsi]                      ; u32 index
 *   cmp eax, max_entries; jae .null
 *   (per-CPU: rax = rax * cpus + sched_getcpu(), see thisCpusValue)
 *   imul rax, rax, stride (shl when a power of two)
 *   movabs r10, values; add rax, r10; jmp .done
 * .null: xor eax, eax; jmp .done
 * .call: the helper call
 * .done:
 * </pre>
 */
final class InlineArrayLookup {
    private InlineArrayLookup() {}

    /** {@code -Dbpf4j.jit.inlineArrayLookup=false} calls the helper everywhere (read at each compile, for A/B timing). */
    static boolean enabled() { return !"false".equals(System.getProperty("bpf4j.jit.inlineArrayLookup")); }

    static void emit(JitContext c, int pc, ArrayLookupInlining.Elements array, HelperBinding b) {
        X86Encoder e = c.e;
        Reg r0 = RegMap.x86(0), key = RegMap.x86(2);
        e.movabs(RegMap.AUX, array.openWord());                                /* movabs r10, open word */
        e.aluMI(AluOp.CMP, true, Mem.of(RegMap.AUX, 0), 0);                    /* cmp qword [r10], 0 */
        int closed = e.jccForward32(Cond.E);                                   /* je .call (the map was closed) */
        e.movRR(true, RegMap.AUX, key);                                        /* mov r10, rsi */
        e.aluRR(AluOp.SUB, true, RegMap.AUX, Reg.RBP);                         /* sub r10, rbp */
        e.aluRI(AluOp.CMP, true, RegMap.AUX, -Limits.STACK_SIZE);              /* cmp r10, -512 */
        int below = e.jccForward32(Cond.L);                                    /* jl .call */
        e.aluRI(AluOp.CMP, true, RegMap.AUX, -array.keySize());                /* cmp r10, -key_size */
        int past = e.jccForward32(Cond.G);                                     /* jg .call */
        e.load(false, r0, Mem.of(key, 0));                                     /* mov eax, [rsi] */
        e.aluRI(AluOp.CMP, false, r0, array.maxEntries());                     /* cmp eax, max_entries */
        int missing = e.jccForward32(Cond.AE);                                 /* jae .null */
        if (array.cpus() > 1) thisCpusValue(e, array);
        int stride = array.stride();
        if (Integer.bitCount(stride) == 1) {
            if (stride > 1) e.shiftImm(Shift.SHL, true, r0, Integer.numberOfTrailingZeros(stride)); /* shl rax, log2(stride) */
        } else {
            e.imulRRI(true, r0, r0, stride);                                   /* imul rax, rax, stride */
        }
        e.movabs(RegMap.AUX, array.valuesBase());                              /* movabs r10, values */
        e.aluRR(AluOp.ADD, true, r0, RegMap.AUX);                              /* add rax, r10 */
        int found = e.jmpForward32();                                          /* jmp .done */
        e.bind32(missing);                                                     /* .null: */
        e.aluRR(AluOp.XOR, false, r0, r0);                                     /* xor eax, eax */
        int none = e.jmpForward32();                                           /* jmp .done */
        e.bind32(closed);                                                      /* .call: */
        e.bind32(below);
        e.bind32(past);
        CallEmitter.call(c, pc, b);
        e.bind32(found);                                                       /* .done: */
        e.bind32(none);
    }

    /**
     * Per-CPU arrays: rax = index * cpus + cpu, cpu from the same {@code sched_getcpu} the helper
     * asks (0 when it answers past the possible CPUs, as {@code Cpus.current}). The call clobbers
     * the budget register and the index; both are pushed (two pushes keep rsp 16-byte aligned).
     */
    private static void thisCpusValue(X86Encoder e, ArrayLookupInlining.Elements array) {
        if (array.currentCpu() != 0) {
            e.push(RegMap.BUDGET);                                             /* push r9 (budget) */
            e.push(Reg.RAX);                                                   /* push rax (index) */
            e.movabs(Reg.RAX, array.currentCpu());                             /* movabs rax, sched_getcpu */
            e.callR(Reg.RAX);                                                  /* call rax */
            e.aluRI(AluOp.CMP, false, Reg.RAX, array.cpus());                  /* cmp eax, cpus */
            int known = e.jccForward8(Cond.B);                                 /* jb .cpu */
            e.aluRR(AluOp.XOR, false, Reg.RAX, Reg.RAX);                       /* xor eax, eax (as Cpus.current) */
            e.bind(known);                                                     /* .cpu: */
            e.movRR(false, RegMap.AUX, Reg.RAX);                               /* mov r10d, eax */
            e.pop(Reg.RAX);                                                    /* pop rax */
            e.pop(RegMap.BUDGET);                                              /* pop r9 */
        } else {
            e.aluRR(AluOp.XOR, false, RegMap.AUX, RegMap.AUX);                 /* xor r10d, r10d (cpu 0) */
        }
        e.imulRRI(true, Reg.RAX, Reg.RAX, array.cpus());                      /* imul rax, rax, cpus */
        e.aluRR(AluOp.ADD, true, Reg.RAX, RegMap.AUX);                         /* add rax, r10 */
    }
}
