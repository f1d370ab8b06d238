package dev.bpf4j.kernel;

import static dev.bpf4j.isa.Opcodes.*;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;

import java.util.ArrayList;
import java.util.List;

/**
 * Rewrites a bpf4j program into the BPF_PROG_TYPE_SYSCALL program the kernel runs for one
 * {@link RunLayout}:
 * <pre>
 *   prologue:  r1..rN = entry values             (lddw map_value(fd, off) for region pointers,
 *                                                  lddw imm64 for numbers)
 *              ja +4                             (over the epilogue)
 *   epilogue:  r1 = map_value(r0 map fd, 0)      (lddw, 2 slots)
 *              *(u64 *)(r1 + 0) = r0
 *              exit
 *   body:      the program, unchanged except each exit of the main program (not of subprograms),
 *              which becomes a jump back to the epilogue
 * </pre>
 * Prepending shifts every slot equally, so relative jump, call and PSEUDO_FUNC offsets inside the
 * program stay valid, and subprograms keep their relative order. The epilogue stores the full
 * 64-bit r0, which BPF_PROG_TEST_RUN's 32-bit {@code retval} cannot carry.
 */
final class KernelTranslation {
    private KernelTranslation() {}

    /** Slots of the epilogue (lddw + store + exit). */
    static final int EPILOGUE_SLOTS = 4;

    /**
     * @param regionFds the array map fd mirroring each region of {@code layout}
     * @param r0Fd the array map (one u64 value) the epilogue stores r0 into
     */
    static Insn[] translate(Program program, RunLayout.Key layout, int[] regionFds, int r0Fd) {
        List<Insn> out = new ArrayList<>();
        for (int i = 0; i < layout.args().size(); i++) {
            int reg = i + 1;
            RunLayout.Binding b = layout.args().get(i);
            if (b instanceof RunLayout.InRegion in) {
                lddw(out, reg, PSEUDO_MAP_VALUE, regionFds[in.region()], (int) in.offset());
            } else {
                long v = ((RunLayout.Constant) b).value();
                lddw(out, reg, PSEUDO_IMM64, (int) v, (int) (v >>> 32));
            }
        }
        out.add(new Insn(JMP | JA, 0, 0, EPILOGUE_SLOTS, 0));
        int epilogue = out.size();
        lddw(out, 1, PSEUDO_MAP_VALUE, r0Fd, 0);
        out.add(new Insn(STX | MEM | DW, 1, 0, 0, 0));
        out.add(new Insn(JMP | EXIT, 0, 0, 0, 0));

        int base = out.size();
        int mainEnd = mainProgramEnd(program);
        for (int pc = 0; pc < program.length(); pc++) {
            Insn insn = program.insn(pc);
            if (pc < mainEnd && insn.opcode() == (JMP | EXIT)) {
                out.add(jumpTo(base + pc, epilogue));
            } else {
                out.add(insn);
                if (insn.opcode() == LDDW && pc + 1 < program.length()) out.add(program.insn(++pc)); // its second slot is data
            }
        }
        return out.toArray(new Insn[0]);
    }

    /** First slot after the main program: the lowest subprogram start (call-local or PSEUDO_FUNC target). */
    static int mainProgramEnd(Program program) {
        int end = program.length();
        for (int pc = 0; pc < program.length(); pc++) {
            Insn insn = program.insn(pc);
            boolean localCall = insn.opcode() == (JMP | CALL) && insn.src() == PSEUDO_CALL;
            boolean funcRef = insn.opcode() == LDDW && insn.src() == PSEUDO_FUNC;
            if (localCall || funcRef) {
                long target = (long) pc + 1 + insn.imm();
                if (target > 0 && target < end) end = (int) target;
            }
            if (insn.opcode() == LDDW) pc++; // skip the second slot
        }
        return end;
    }

    private static Insn jumpTo(int from, int to) {
        long off = (long) to - (from + 1);
        if (off >= Short.MIN_VALUE) return new Insn(JMP | JA, 0, 0, (int) off, 0);
        return new Insn(JMP32 | JA, 0, 0, 0, (int) off); // gotol: 32-bit offset in imm (cpu v4)
    }

    private static void lddw(List<Insn> out, int dst, int src, int lo, int hi) {
        out.add(new Insn(LDDW, dst, src, 0, lo));
        out.add(new Insn(0, 0, 0, 0, hi));
    }
}
