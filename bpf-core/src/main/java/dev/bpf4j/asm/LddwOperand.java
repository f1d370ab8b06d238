package dev.bpf4j.asm;

import dev.bpf4j.isa.Opcodes;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The second operand of {@code lddw}: a 64-bit number (src 0) or one of the RFC 9669 pseudo sources
 * written as their functions: {@code map_by_fd(x)} (1), {@code map_val(map_by_fd(x)) + n} (2),
 * {@code var_addr(x)} (3), {@code code_addr(x)} (4), {@code map_by_idx(x)} (5),
 * {@code map_val(map_by_idx(x)) + n} (6). A map argument may be a name known to {@link AsmSymbols}.
 */
record LddwOperand(int src, int imm, int nextImm) {
    private static final Pattern MAP_VAL =
            Pattern.compile("map_val\\(\\s*(map_by_fd|map_by_idx)\\(\\s*([^()]+?)\\s*\\)\\s*\\)\\s*(?:([+-])\\s*(\\S+))?");
    private static final Pattern CALL = Pattern.compile("(map_by_fd|map_by_idx|var_addr|code_addr)\\(\\s*([^()]+?)\\s*\\)");

    static LddwOperand parse(String text, AsmSymbols symbols) {
        Matcher m = MAP_VAL.matcher(text);
        if (m.matches()) {
            int src = m.group(1).equals("map_by_fd") ? Opcodes.PSEUDO_MAP_VALUE : Opcodes.PSEUDO_MAP_IDX_VALUE;
            int next = m.group(3) == null ? 0 : Operands.imm32(m.group(3) + m.group(4));
            return new LddwOperand(src, argument(m.group(2), true, symbols), next);
        }
        m = CALL.matcher(text);
        if (m.matches()) {
            int src = switch (m.group(1)) {
                case "map_by_fd" -> Opcodes.PSEUDO_MAP_FD;
                case "map_by_idx" -> Opcodes.PSEUDO_MAP_IDX;
                case "var_addr" -> Opcodes.PSEUDO_BTF_ID;
                default -> Opcodes.PSEUDO_FUNC;
            };
            return new LddwOperand(src, argument(m.group(2), m.group(1).startsWith("map"), symbols), 0);
        }
        long v = Operands.imm64(text);
        return new LddwOperand(0, (int) v, (int) (v >>> 32));
    }

    private static int argument(String arg, boolean map, AsmSymbols symbols) {
        if (Operands.isNumber(arg)) return Operands.imm32(arg);
        Integer n = map ? symbols.map(arg) : null;
        if (n == null) throw new IllegalArgumentException("unknown " + (map ? "map" : "symbol") + " '" + arg + "'");
        return n;
    }

    /** The conformance spelling, or null when this pseudo source cannot carry {@code nextImm}. */
    String format() {
        switch (src) {
            case 0: return "0x" + Long.toHexString((imm & 0xffffffffL) | ((long) nextImm << 32));
            case Opcodes.PSEUDO_MAP_VALUE: case Opcodes.PSEUDO_MAP_IDX_VALUE: {
                String inner = (src == Opcodes.PSEUDO_MAP_VALUE ? "map_by_fd(" : "map_by_idx(") + imm + ")";
                return "map_val(" + inner + ")" + (nextImm == 0 ? "" : nextImm < 0 ? " - " + -(long) nextImm : " + " + nextImm);
            }
            default: {
                if (nextImm != 0) return null;
                String fn = switch (src) {
                    case Opcodes.PSEUDO_MAP_FD -> "map_by_fd";
                    case Opcodes.PSEUDO_MAP_IDX -> "map_by_idx";
                    case Opcodes.PSEUDO_BTF_ID -> "var_addr";
                    default -> "code_addr";
                };
                return fn + "(" + imm + ")";
            }
        }
    }
}
