package dev.bpf4j.bench;

import dev.bpf4j.isa.AluOps;
import dev.bpf4j.isa.JmpOps;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Limits;
import dev.bpf4j.runtime.NativeMemory;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * Counts the instructions the interpreter dispatches for one run, for the "ns per executed BPF
 * instruction" figure. It is a bench-only walker, not a second engine: it follows the interpreter's
 * control flow slot for slot (an lddw is one dispatch that advances two slots, a taken jump goes to
 * {@code pc + 1 + off}, {@code exit} of the main program ends the run) and computes values with the
 * interpreter's own {@link AluOps} / {@link JmpOps}, so that branches go the same way. It covers
 * what the workloads use (ALU, ALU64, byte swaps, LDX/ST/STX MEM, jumps, lddw, exit) and refuses
 * anything else; its r0 is checked against the real engines' result, which catches any drift.
 */
public final class StepCounter {
    /** r0 and the number of dispatched instructions. */
    public record Steps(long r0, long count) {}

    private final Program program;
    private final Insn[] insns;

    public StepCounter(Program program) {
        this.program = program;
        this.insns = program.toArray();
    }

    /** Runs with r1 = {@code data}, r2 = {@code length}; loads/stores must stay in the data or the stack. */
    public Steps run(long data, long length) {
        long stack = NativeMemory.allocate(Limits.STACK_SIZE);
        try {
            return walk(data, length, stack);
        } finally {
            NativeMemory.free(stack);
        }
    }

    private Steps walk(long data, long length, long stack) {
        long[] r = new long[11];
        r[1] = data;
        r[2] = length;
        r[10] = stack + Limits.STACK_SIZE;
        Memory mem = new Memory(data, length, stack);
        long count = 0;
        int pc = 0;
        while (true) {
            if (pc < 0 || pc >= insns.length) throw error(pc, "ran outside the program");
            Insn in = insns[pc];
            int op = in.opcode();
            count++;
            switch (cls(op)) {
                case ALU: case ALU64:
                    r[in.dst()] = alu(in, r[in.dst()], source(op) == X ? r[in.src()] : in.imm());
                    pc++;
                    break;
                case LD:
                    if (op != LDDW || in.src() != PSEUDO_IMM64) throw error(pc, "only plain lddw is supported");
                    r[in.dst()] = in.imm64(insns[pc + 1]);
                    pc += 2;
                    break;
                case LDX:
                    if (mode(op) != MEM) throw error(pc, "only LDX MEM is supported");
                    r[in.dst()] = mem.load(r[in.src()] + in.off(), sizeBytes(op), pc);
                    pc++;
                    break;
                case ST: case STX:
                    if (mode(op) != MEM) throw error(pc, "only ST/STX MEM is supported (no atomics)");
                    mem.store(r[in.dst()] + in.off(), sizeBytes(op), cls(op) == ST ? in.imm() : r[in.src()], pc);
                    pc++;
                    break;
                default: // JMP, JMP32
                    if (op == (JMP | EXIT)) return new Steps(r[0], count);
                    if (op(op) == CALL) throw error(pc, "calls are not supported by the step counter");
                    if (op == (JMP32 | JA)) { pc += 1 + in.imm(); break; }
                    boolean taken = op(op) == JA || jump(op, r[in.dst()], source(op) == X ? r[in.src()] : in.imm());
                    pc += taken ? 1 + in.off() : 1;
            }
        }
    }

    private long alu(Insn in, long a, long b) {
        boolean w64 = cls(in.opcode()) == ALU64;
        boolean signed = in.off() == 1;
        switch (op(in.opcode())) {
            case ADD: return w64 ? AluOps.add64(a, b) : AluOps.add32(a, b);
            case SUB: return w64 ? AluOps.sub64(a, b) : AluOps.sub32(a, b);
            case MUL: return w64 ? AluOps.mul64(a, b) : AluOps.mul32(a, b);
            case DIV: return w64 ? (signed ? AluOps.sdiv64(a, b) : AluOps.div64(a, b)) : (signed ? AluOps.sdiv32(a, b) : AluOps.div32(a, b));
            case MOD: return w64 ? (signed ? AluOps.smod64(a, b) : AluOps.mod64(a, b)) : (signed ? AluOps.smod32(a, b) : AluOps.mod32(a, b));
            case OR: return w64 ? AluOps.or64(a, b) : AluOps.or32(a, b);
            case AND: return w64 ? AluOps.and64(a, b) : AluOps.and32(a, b);
            case XOR: return w64 ? AluOps.xor64(a, b) : AluOps.xor32(a, b);
            case LSH: return w64 ? AluOps.lsh64(a, b) : AluOps.lsh32(a, b);
            case RSH: return w64 ? AluOps.rsh64(a, b) : AluOps.rsh32(a, b);
            case ARSH: return w64 ? AluOps.arsh64(a, b) : AluOps.arsh32(a, b);
            case NEG: return w64 ? AluOps.neg64(a) : AluOps.neg32(a);
            case MOV:
                if (in.off() != 0 && source(in.opcode()) == X) return w64 ? AluOps.movsx64(b, in.off()) : AluOps.movsx32(b, in.off());
                return w64 ? b : AluOps.mov32(b);
            case END:
                return !w64 && source(in.opcode()) == TO_LE ? AluOps.toLe(a, in.imm()) : AluOps.bswap(a, in.imm());
            default:
                throw new IllegalStateException(String.format("program '%s': unknown ALU opcode 0x%02x", program.name(), in.opcode()));
        }
    }

    private static boolean jump(int op, long a, long b) {
        boolean j32 = cls(op) == JMP32;
        switch (op(op)) {
            case JEQ: return j32 ? JmpOps.jeq32(a, b) : JmpOps.jeq(a, b);
            case JNE: return j32 ? JmpOps.jne32(a, b) : JmpOps.jne(a, b);
            case JSET: return j32 ? JmpOps.jset32(a, b) : JmpOps.jset(a, b);
            case JGT: return j32 ? JmpOps.jgt32(a, b) : JmpOps.jgt(a, b);
            case JGE: return j32 ? JmpOps.jge32(a, b) : JmpOps.jge(a, b);
            case JLT: return j32 ? JmpOps.jlt32(a, b) : JmpOps.jlt(a, b);
            case JLE: return j32 ? JmpOps.jle32(a, b) : JmpOps.jle(a, b);
            case JSGT: return j32 ? JmpOps.jsgt32(a, b) : JmpOps.jsgt(a, b);
            case JSGE: return j32 ? JmpOps.jsge32(a, b) : JmpOps.jsge(a, b);
            case JSLT: return j32 ? JmpOps.jslt32(a, b) : JmpOps.jslt(a, b);
            case JSLE: return j32 ? JmpOps.jsle32(a, b) : JmpOps.jsle(a, b);
            default: throw new IllegalStateException(String.format("unknown jump opcode 0x%02x", op));
        }
    }

    private IllegalStateException error(int pc, String reason) {
        return new IllegalStateException("program '" + program.name() + "' pc " + pc + ": step counter: " + reason);
    }

    /** The data buffer and the one stack frame, each access checked before it touches memory. */
    private final class Memory {
        private final long data, dataEnd, stack, stackEnd;

        Memory(long data, long length, long stack) {
            this.data = data;
            this.dataEnd = data + length;
            this.stack = stack;
            this.stackEnd = stack + Limits.STACK_SIZE;
        }

        long load(long a, int size, int pc) {
            check(a, size, false, pc);
            return NativeMemory.load(a, size);
        }

        void store(long a, int size, long v, int pc) {
            check(a, size, true, pc);
            NativeMemory.store(a, size, v);
        }

        private void check(long a, int size, boolean write, int pc) {
            boolean inStack = a >= stack && a + size <= stackEnd;
            boolean inData = !write && a >= data && a + size <= dataEnd;
            if (!inStack && !inData) throw error(pc, String.format("%d-byte %s at 0x%x outside the data and the stack",
                    size, write ? "store" : "load", a));
        }
    }
}
