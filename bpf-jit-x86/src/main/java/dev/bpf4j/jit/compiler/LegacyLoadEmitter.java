package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.LegacyPacketOffsets;

/**
 * LD ABS/IND B/H/W (docs/runtime-semantics.md "Legacy packet loads"): r0 = the 1, 2 or 4 big-endian
 * bytes at {@code offset} of the run's packet, where offset = (int) (imm [+ src]); a negative one is
 * past the sk_buff's network or mac header (env words PKT_NET_OFF, PKT_MAC_OFF). Out of range the
 * function returns with r0 = 0, as the kernel's classic-BPF loads do. Inline: the packet bounds are
 * in the env block; r10/r11 are the only scratch registers touched.
 */
final class LegacyLoadEmitter {
    private LegacyLoadEmitter() {}

    static void emit(JitContext c, int pc, Insn i) {
        X86Encoder e = c.e;
        int op = i.opcode();
        int size = Opcodes.sizeBytes(op);
        X86Reg off = RegMap.AUX, tmp = RegMap.AUX2;
        if (Opcodes.mode(op) == Opcodes.IND) {
            e.movRR(false, off, RegMap.x86(i.src()));                    /* mov r10d, src32 */
            e.aluRI(AluOp.ADD, false, off, i.imm());                     /* add r10d, imm (low 32 bits of src + imm) */
            e.movsxd(off, off);                                          /* movsxd r10, r10d */
        } else {
            e.movImmSx(off, i.imm());                                    /* mov r10, imm */
        }
        e.testRR(true, off, off);                                        /* test r10, r10 */
        int pos = e.jccForward8(Cond.NS);                                /* jns .pos */
        // SKF_NET_OFF + k / SKF_LL_OFF + k: k past the network / mac header (LegacyPacketOffsets)
        e.aluRI(AluOp.CMP, true, off, LegacyPacketOffsets.SKF_NET_OFF);  /* cmp r10, SKF_NET_OFF */
        int ll = e.jccForward8(Cond.L);                                  /* jl .ll */
        e.aluRI(AluOp.SUB, true, off, LegacyPacketOffsets.SKF_NET_OFF);  /* sub r10, SKF_NET_OFF */
        e.aluRM(AluOp.ADD, true, off, JitContext.env(EnvLayout.PKT_NET_OFF)); /* add r10, [r12 + PKT_NET_OFF] */
        int header = e.jmpForward8();                                    /* jmp .header */
        e.bind(ll);                                                      /* .ll: */
        e.aluRI(AluOp.CMP, true, off, LegacyPacketOffsets.SKF_LL_OFF);   /* cmp r10, SKF_LL_OFF */
        int below = e.jccForward8(Cond.L);                               /* jl .out */
        e.aluRI(AluOp.SUB, true, off, LegacyPacketOffsets.SKF_LL_OFF);   /* sub r10, SKF_LL_OFF */
        e.aluRM(AluOp.ADD, true, off, JitContext.env(EnvLayout.PKT_MAC_OFF)); /* add r10, [r12 + PKT_MAC_OFF] */
        e.bind(header);                                                  /* .header: r10 >= the header's offset, maybe < 0 */
        e.lea(tmp, Mem.of(off, size));                                   /* lea r11, [r10 + size] */
        e.aluRM(AluOp.CMP, true, tmp, JitContext.env(EnvLayout.PKT_LEN)); /* cmp r11, [r12 + PKT_LEN] */
        int pastHeader = e.jccForward8(Cond.G);                          /* jg .out (signed) */
        int load = e.jmpForward8();                                      /* jmp .load */
        e.bind(pos);                                                     /* .pos: */
        e.lea(tmp, Mem.of(off, size));                                   /* lea r11, [r10 + size] */
        e.aluRM(AluOp.CMP, true, tmp, JitContext.env(EnvLayout.PKT_LEN)); /* cmp r11, [r12 + PKT_LEN] */
        int past = e.jccForward8(Cond.A);                                /* ja .out */
        e.bind(load);                                                    /* .load: */
        e.aluRM(AluOp.ADD, true, off, JitContext.env(EnvLayout.PKT_ADDR)); /* add r10, [r12 + PKT_ADDR] */
        X86Reg r0 = RegMap.x86(0);
        Mem m = Mem.of(off, 0);
        switch (size) {
            case 1: e.loadZx8(r0, m); break;                             /* movzx eax, byte [r10] */
            case 2: e.loadZx16(r0, m); e.rol16By8(r0); break;            /* movzx eax, word [r10]; rol ax, 8 */
            default: e.load(false, r0, m); e.bswap(false, r0);           /* mov eax, [r10]; bswap eax */
        }
        int done = e.jmpForward8();                                      /* jmp .done */
        e.bind(below);                                                   /* .out: */
        e.bind(pastHeader);
        e.bind(past);
        e.aluRR(AluOp.XOR, false, r0, r0);                               /* xor eax, eax */
        e.jmpRel32(c.epilogueOffset());                                  /* jmp epilogue (return r0 = 0) */
        e.bind(done);                                                    /* .done: */
    }
}
