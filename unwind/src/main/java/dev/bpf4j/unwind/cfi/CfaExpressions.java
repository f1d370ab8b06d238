package dev.bpf4j.unwind.cfi;

import dev.bpf4j.elf.ByteView;

/**
 * Recognises the few {@code DW_CFA_def_cfa_expression} shapes x86-64 code carries instead of
 * evaluating DWARF expressions: the lazy-binding PLT's
 * {@code breg7 N; breg16 0; lit15; and; litK; ge; lit3; shl; plus} (binutils emits it for
 * {@code .plt}: CFA = rsp + N, plus 8 once the entry's {@code push} has run) and
 * {@code bregR N; deref} (a saved stack pointer: signal frames, functions that realign rsp).
 * Anything else is {@link CfaDefinition#EXPRESSION}: the row is unusable.
 */
final class CfaExpressions {
    private CfaExpressions() {}

    static final int DW_OP_deref = 0x06, DW_OP_and = 0x1a, DW_OP_plus = 0x22, DW_OP_shl = 0x24, DW_OP_ge = 0x2a,
            DW_OP_lit0 = 0x30, DW_OP_breg0 = 0x70;

    static CfaDefinition cfa(byte[] expr) {
        try {
            CfiCursor c = new CfiCursor(ByteView.of(expr, "DWARF expression"), 0, 0, expr.length);
            int op = c.u8();
            if (op < DW_OP_breg0 || op > DW_OP_breg0 + 31) return CfaDefinition.EXPRESSION;
            int reg = op - DW_OP_breg0;
            long off = c.sleb();
            if (c.atEnd()) return CfaDefinition.EXPRESSION;
            int next = c.u8();
            if (next == DW_OP_deref && c.atEnd()) return new CfaDefinition(CfaDefinition.Kind.DEREF, reg, off, 0);
            if (reg != CfaInterpreter.RSP || next != DW_OP_breg0 + 16 || c.sleb() != 0) return CfaDefinition.EXPRESSION;
            if (c.u8() != DW_OP_lit0 + 15 || c.u8() != DW_OP_and) return CfaDefinition.EXPRESSION;
            int k = c.u8() - DW_OP_lit0;
            if (k < 0 || k > 31) return CfaDefinition.EXPRESSION;
            if (c.u8() != DW_OP_ge || c.u8() != DW_OP_lit0 + 3 || c.u8() != DW_OP_shl || c.u8() != DW_OP_plus || !c.atEnd()) {
                return CfaDefinition.EXPRESSION;
            }
            return new CfaDefinition(CfaDefinition.Kind.PLT, CfaInterpreter.RSP, off, k);
        } catch (CfiFormatException e) {
            return CfaDefinition.EXPRESSION;   // a truncated expression is just not one of the shapes
        }
    }
}
