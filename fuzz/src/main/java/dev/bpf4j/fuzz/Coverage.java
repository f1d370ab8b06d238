package dev.bpf4j.fuzz;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.isa.Insn;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static dev.bpf4j.isa.Opcodes.*;

/**
 * The program classes one case exercises, read off its instructions and its object (not taken from the
 * generator's intentions): instruction classes (ALU/ALU64, JMP/JMP32, each load/store width, sign
 * extension, bswap, every atomic), control flow (back-edges, bpf-to-bpf calls and how deep a call
 * chain goes, past Linux's 8 frames included), helpers by family, LD_ABS/LD_IND, context and packet
 * accesses, and each kind of map in the object. A campaign counts programs and accepted programs per class.
 */
public final class Coverage {
    private Coverage() {}

    public static Set<String> classes(FuzzCase c) {
        Set<String> out = new TreeSet<>();
        List<Insn> insns = c.insns();
        for (int pc = 0; pc < insns.size(); pc++) {
            Insn i = insns.get(pc);
            int op = i.opcode(), cls = op & 7;
            switch (cls) {
                case ALU, ALU64 -> alu(out, i, cls == ALU64 ? "alu64" : "alu32");
                case JMP, JMP32 -> jump(out, i, pc, cls == JMP ? "jmp" : "jmp32");
                case LDX -> {
                    out.add(((op & 0xe0) == MEMSX ? "ldxsx" : "ldx") + width(op));
                    if (c.isObject() && i.src() == 6) out.add(i.off() == ObjectStatements.SKB_DATA ? "packet-direct" : "ctx-load");
                }
                case ST -> out.add(c.isObject() && i.dst() == 6 ? "ctx-store-imm" : "st" + width(op));
                case STX -> {
                    if ((op & 0xe0) == ATOMIC) out.add(atomic(i));
                    else out.add(c.isObject() && i.dst() == 6 ? "ctx-store" : "stx" + width(op));
                }
                case LD -> {
                    if (op == LDDW) {
                        out.add(i.src() == PSEUDO_MAP_FD ? "lddw-map" : i.src() == PSEUDO_FUNC ? "lddw-func" : "lddw");
                        pc++;
                    } else out.add((op & 0xe0) == ABS ? "ld_abs" : "ld_ind");
                }
                default -> { }
            }
        }
        int depth = CallDepth.max(insns);
        if (depth > 1) out.add(depth > 8 ? "call-depth>8" : "call-depth-" + depth);
        if (c.isObject()) for (MapDef m : c.object().maps()) out.add("map-" + m.type().name().toLowerCase());
        else out.add(c.mem() == null ? "no-memory" : "memory-block");
        return out;
    }

    private static String width(int op) {
        return switch (op & 0x18) { case B -> "8"; case H -> "16"; case W -> "32"; default -> "64"; };
    }

    private static void alu(Set<String> out, Insn i, String cls) {
        int op = i.opcode() & 0xf0;
        if (op == END) {
            out.add((i.opcode() & 7) == ALU64 ? "bswap" : "end" + ((i.opcode() & TO_BE) != 0 ? "-be" : "-le"));
        } else if (op == MOV && i.off() != 0) {
            out.add("movsx" + (cls.equals("alu64") ? "64" : "32"));
        } else if ((op == DIV || op == MOD) && i.off() == 1) {
            out.add(cls);
            out.add("sdiv/smod");
        } else {
            out.add(cls);
        }
    }

    private static void jump(Set<String> out, Insn i, int pc, String cls) {
        int op = i.opcode() & 0xf0;
        if (op == CALL) {
            if (i.src() == PSEUDO_CALL) out.add("call-local");
            else out.add(helper(i.imm()));
        } else if (op == EXIT) {
            out.add("exit");
        } else {
            out.add(cls);
            int off = op == JA && (i.opcode() & 7) == JMP32 ? i.imm() : i.off();
            if (off < 0) out.add("back-edge");
        }
    }

    private static String atomic(Insn i) {
        return switch (i.imm()) {
            case XCHG -> "atomic-xchg";
            case CMPXCHG -> "atomic-cmpxchg";
            default -> (i.imm() & FETCH) != 0 ? "atomic-fetch" : "atomic";
        };
    }

    static String helper(int id) {
        return switch (id) {
            case HelperIds.MAP_LOOKUP_ELEM -> "map-lookup";
            case HelperIds.MAP_UPDATE_ELEM -> "map-update";
            case HelperIds.MAP_DELETE_ELEM -> "map-delete";
            case HelperIds.RINGBUF_OUTPUT -> "ringbuf-output";
            case HelperIds.RINGBUF_RESERVE, HelperIds.RINGBUF_SUBMIT, HelperIds.RINGBUF_DISCARD -> "ringbuf-reserve";
            case HelperIds.LOOP -> "bpf_loop";
            case HelperIds.FOR_EACH_MAP_ELEM -> "for_each_map_elem";
            case HelperIds.TAIL_CALL -> "tail_call";
            case HelperIds.PROBE_READ_KERNEL, HelperIds.PROBE_READ_KERNEL_STR -> "probe_read_kernel";
            default -> id >= 1000 ? "helper-unknown" : "helper-" + id;
        };
    }

    /** The deepest chain of {@code call local}s (callbacks count as calls), 1 for a program without. */
    static final class CallDepth {
        private CallDepth() {}

        static int max(List<Insn> insns) {
            List<Integer> starts = new ArrayList<>(new TreeSet<>(targets(insns)));
            if (starts.isEmpty()) return 1;
            starts.add(0, 0);
            int n = starts.size();
            List<Set<Integer>> callees = new ArrayList<>();
            for (int f = 0; f < n; f++) callees.add(new TreeSet<>());
            for (int pc = 0; pc < insns.size(); pc++) {
                Insn i = insns.get(pc);
                boolean local = i.opcode() == (JMP | CALL) && i.src() == PSEUDO_CALL || i.opcode() == LDDW && i.src() == PSEUDO_FUNC;
                if (local) {
                    int f = function(starts, pc), g = starts.indexOf(pc + i.imm() + 1);
                    if (f >= 0 && g >= 0) callees.get(f).add(g);
                }
            }
            return depth(0, callees, new int[n], 0);
        }

        private static int depth(int f, List<Set<Integer>> callees, int[] onPath, int level) {
            if (onPath[f] != 0 || level > 64) return 64; // recursion: as deep as it gets
            onPath[f] = 1;
            int d = 1;
            for (int g : callees.get(f)) d = Math.max(d, 1 + depth(g, callees, onPath, level + 1));
            onPath[f] = 0;
            return d;
        }

        private static int function(List<Integer> starts, int pc) {
            int f = -1;
            for (int i = 0; i < starts.size() && starts.get(i) <= pc; i++) f = i;
            return f;
        }

        private static List<Integer> targets(List<Insn> insns) {
            List<Integer> out = new ArrayList<>();
            for (int pc = 0; pc < insns.size(); pc++) {
                Insn i = insns.get(pc);
                boolean local = i.opcode() == (JMP | CALL) && i.src() == PSEUDO_CALL || i.opcode() == LDDW && i.src() == PSEUDO_FUNC;
                if (local && pc + i.imm() + 1 > 0) out.add(pc + i.imm() + 1);
            }
            return out;
        }
    }
}
