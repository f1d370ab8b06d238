package dev.bpf4j.jit.compiler;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;

/**
 * Shifts. x86 masks the count exactly as eBPF does (63 / 31). A register count must be in cl,
 * but cl is BPF R4's low byte: park rcx in r11 around the shift.
 */
final class ShiftEmitter {
    private ShiftEmitter() {}

    static void emit(X86Encoder e, Shift s, boolean w, boolean x, X86Reg dst, Insn i) {
        if (!x) {
            int count = i.imm() & (w ? 63 : 31);
            if (count != 0) e.shiftImm(s, w, dst, count);     /* shl|shr|sar dst, imm */
            else if (!w) e.movRR(false, dst, dst);            /* mov dst32, dst32 (shift by 0 still zero-extends) */
            return;
        }
        X86Reg src = RegMap.x86(i.src());
        if (src == X86Reg.RCX) {
            e.shiftCl(s, w, dst);                             /* shl|shr|sar dst, cl */
        } else if (dst == X86Reg.RCX) {
            e.movRR(true, RegMap.AUX2, X86Reg.RCX);              /* mov r11, rcx */
            e.movRR(true, X86Reg.RCX, src);                      /* mov rcx, src */
            e.shiftCl(s, w, RegMap.AUX2);                     /* shl|shr|sar r11, cl */
            e.movRR(w, X86Reg.RCX, RegMap.AUX2);                 /* mov rcx, r11 */
        } else {
            e.movRR(true, RegMap.AUX2, X86Reg.RCX);              /* mov r11, rcx */
            e.movRR(true, X86Reg.RCX, src);                      /* mov rcx, src */
            e.shiftCl(s, w, dst);                             /* shl|shr|sar dst, cl */
            e.movRR(true, X86Reg.RCX, RegMap.AUX2);              /* mov rcx, r11 */
        }
    }
}
