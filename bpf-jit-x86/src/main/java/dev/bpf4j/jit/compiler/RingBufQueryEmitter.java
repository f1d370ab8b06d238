package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.runtime.NativeForm.RingBufOutput;

/**
 * {@code bpf_ringbuf_query} as native code ({@code NativeForm.RingBufQuery}): {@code u64 f(void *ring, u64
 * flags)}, r1 the ring's block. The loads of {@code RingBufMap.query}, in its order (producer, then consumer
 * position for {@code BPF_RB_AVAIL_DATA}); 0 for any other flags.
 */
final class RingBufQueryEmitter {
    private RingBufQueryEmitter() {}

    static void body(X86Encoder e) {
        X86Reg ring = X86Reg.RDI, flags = X86Reg.RSI;
        e.aluRI(AluOp.CMP, true, flags, (int) MapFlags.BPF_RB_AVAIL_DATA);       /* cmp rsi, BPF_RB_AVAIL_DATA */
        int notAvail = e.jccForward8(Cond.NE);                                    /* jne .size */
        e.load(true, X86Reg.RAX, Mem.of(ring, RingBufOutput.PRODUCER_POS));       /* mov rax, [rdi + PRODUCER_POS] */
        e.aluRM(AluOp.SUB, true, X86Reg.RAX, Mem.of(ring, RingBufOutput.CONSUMER_POS)); /* sub rax, [rdi] (prod - cons) */
        int done1 = e.jmpForward32();                                             /* jmp .done */
        e.bind(notAvail);                                                         /* .size: */
        e.aluRI(AluOp.CMP, true, flags, (int) MapFlags.BPF_RB_RING_SIZE);        /* cmp rsi, BPF_RB_RING_SIZE */
        int notSize = e.jccForward8(Cond.NE);                                     /* jne .cons */
        e.load(true, X86Reg.RAX, Mem.of(ring, RingBufOutput.MASK));               /* mov rax, [rdi + MASK] */
        e.aluRI(AluOp.ADD, true, X86Reg.RAX, 1);                                  /* add rax, 1 (capacity) */
        int done2 = e.jmpForward32();                                             /* jmp .done */
        e.bind(notSize);                                                          /* .cons: */
        e.aluRI(AluOp.CMP, true, flags, (int) MapFlags.BPF_RB_CONS_POS);         /* cmp rsi, BPF_RB_CONS_POS */
        int notCons = e.jccForward8(Cond.NE);                                     /* jne .prod */
        e.load(true, X86Reg.RAX, Mem.of(ring, RingBufOutput.CONSUMER_POS));       /* mov rax, [rdi] */
        int done3 = e.jmpForward32();                                             /* jmp .done */
        e.bind(notCons);                                                          /* .prod: */
        e.aluRI(AluOp.CMP, true, flags, (int) MapFlags.BPF_RB_PROD_POS);         /* cmp rsi, BPF_RB_PROD_POS */
        int notProd = e.jccForward8(Cond.NE);                                     /* jne .zero */
        e.load(true, X86Reg.RAX, Mem.of(ring, RingBufOutput.PRODUCER_POS));       /* mov rax, [rdi + PRODUCER_POS] */
        int done4 = e.jmpForward32();                                             /* jmp .done */
        e.bind(notProd);                                                          /* .zero: */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                        /* xor eax, eax (unknown flags) */
        for (int j : new int[] {done1, done2, done3, done4}) e.bind32(j);         /* .done: */
    }
}
