package dev.bpf4j.unwind.cfi;

import dev.bpf4j.elf.ElfFormatException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Runs the {@code DW_CFA_*} instructions of a CIE and an FDE (DWARF 5 §6.4.2) into the FDE's rows.
 * Rules are tracked for the x86-64 registers 0-16 (rax ... r15, the return address column);
 * rules for higher columns (vector registers) are read and ignored. Every instruction consumes at
 * least one byte and the remember-stack is bounded, so any input ends.
 */
public final class CfaInterpreter {
    public static final int RBP = 6, RSP = 7, RA = 16;
    static final int MAX_REGISTER = 0xffff;
    static final int COLUMNS = 17;
    static final int MAX_REMEMBERED = 64;

    private CfaInterpreter() {}

    private static final class State {
        CfaDefinition cfa = CfaDefinition.EXPRESSION;
        RegisterRule[] rules = new RegisterRule[COLUMNS];

        State() { java.util.Arrays.fill(rules, RegisterRule.SAME_VALUE); }

        State copy() {
            State s = new State();
            s.cfa = cfa;
            s.rules = rules.clone();
            return s;
        }
    }

    /** The rows of {@code fde}, in pc order, covering {@code [pcBegin, pcEnd)} without gaps. */
    public static List<CfiRow> rows(EhFrame frame, Fde fde) {
        try {
            return run(frame, fde);
        } catch (CfiFormatException e) {
            throw CfiFormatException.of(".eh_frame FDE at 0x%x (pc 0x%x): %s", fde.offset(), fde.pcBegin(), e.getMessage());
        } catch (ElfFormatException e) {
            throw new CfiFormatException(".eh_frame FDE at 0x" + Long.toHexString(fde.offset()) + ": " + e.getMessage(), e);
        }
    }

    private static List<CfiRow> run(EhFrame frame, Fde fde) {
        Cie cie = fde.cie();
        State state = new State();
        Program p = new Program(frame, fde, state, null);
        p.execute(new CfiCursor(frame.data(), frame.vaddr(), cie.instructionsStart(), cie.instructionsEnd()), true);
        p.initial = state.copy();
        p.execute(new CfiCursor(frame.data(), frame.vaddr(), fde.instructionsStart(), fde.instructionsEnd()), false);
        p.emit(fde.pcEnd());
        return p.rows;
    }

    private static final class Program {
        final Fde fde;
        final Cie cie;
        final EhFrame frame;
        State state;
        State initial;
        final Deque<State> remembered = new ArrayDeque<>();
        final List<CfiRow> rows = new ArrayList<>();
        long loc;

        Program(EhFrame frame, Fde fde, State state, State initial) {
            this.frame = frame;
            this.fde = fde;
            this.cie = fde.cie();
            this.state = state;
            this.initial = initial;
            this.loc = fde.pcBegin();
        }

        /** Closes the row that started at {@code loc} at {@code to} (clamped to the FDE's end). */
        void emit(long to) {
            long end = Long.compareUnsigned(to, fde.pcEnd()) > 0 ? fde.pcEnd() : to;
            if (Long.compareUnsigned(end, loc) <= 0) return;
            int raColumn = cie.returnRegister();
            RegisterRule ra = raColumn < COLUMNS ? state.rules[raColumn] : RegisterRule.EXPRESSION;
            rows.add(new CfiRow(loc, end, state.cfa, state.rules[RBP], ra, cie.signalFrame()));
        }

        void advance(long delta) {
            long to = loc + delta;
            if (Long.compareUnsigned(to, loc) < 0) throw CfiFormatException.of("location advances past the end of the address space");
            emit(to);
            if (Long.compareUnsigned(to, loc) > 0) loc = to;
        }

        void set(int register, RegisterRule rule) {
            if (register > MAX_REGISTER) throw CfiFormatException.of("register %d", register);
            if (register < COLUMNS) state.rules[register] = rule;
        }

        RegisterRule initialRule(int register) {
            if (initial == null) throw CfiFormatException.of("DW_CFA_restore in a CIE's initial instructions");
            return register < COLUMNS ? initial.rules[register] : RegisterRule.SAME_VALUE;
        }

        void defCfa(int register, long offset) {
            if (register > MAX_REGISTER) throw CfiFormatException.of("CFA register %d", register);
            state.cfa = CfaDefinition.registerOffset(register, offset);
        }

        void defCfaOffset(long offset) {
            // Only meaningful after a register rule: on an expression the row stays unusable.
            if (state.cfa.kind() == CfaDefinition.Kind.REGISTER_OFFSET) state.cfa = CfaDefinition.registerOffset(state.cfa.register(), offset);
        }

        void execute(CfiCursor c, boolean inCie) {
            long da = cie.dataAlign(), ca = cie.codeAlign();
            while (!c.atEnd()) {
                int op = c.u8();
                int high = op & 0xc0, low = op & 0x3f;
                if (high == 0x40) { advance(low * ca); continue; }                             // DW_CFA_advance_loc
                if (high == 0x80) { set(low, RegisterRule.offset(c.uleb() * da)); continue; }  // DW_CFA_offset
                if (high == 0xc0) { set(low, initialRule(low)); continue; }                      // DW_CFA_restore
                switch (op) {
                    case 0x00 -> { }                                                               // DW_CFA_nop
                    case 0x01 -> {                                                                 // DW_CFA_set_loc
                        long to = c.pointer(cie.fdeEncoding(), 0, "DW_CFA_set_loc");
                        if (Long.compareUnsigned(to, loc) < 0) throw CfiFormatException.of("DW_CFA_set_loc moves back to 0x%x from 0x%x", to, loc);
                        advance(to - loc);
                    }
                    case 0x02 -> advance(c.u8() * ca);                                             // DW_CFA_advance_loc1
                    case 0x03 -> advance(c.u16() * ca);                                            // DW_CFA_advance_loc2
                    case 0x04 -> advance(c.u32() * ca);                                            // DW_CFA_advance_loc4
                    case 0x05 -> { int r = c.ulebInt("register"); set(r, RegisterRule.offset(c.uleb() * da)); } // DW_CFA_offset_extended
                    case 0x06 -> { int r = c.ulebInt("register"); set(r, initialRule(r)); }        // DW_CFA_restore_extended
                    case 0x07 -> set(c.ulebInt("register"), RegisterRule.UNDEFINED);              // DW_CFA_undefined
                    case 0x08 -> set(c.ulebInt("register"), RegisterRule.SAME_VALUE);             // DW_CFA_same_value
                    case 0x09 -> { int r = c.ulebInt("register"); set(r, new RegisterRule(RegisterRule.Kind.REGISTER, c.ulebInt("register"))); } // DW_CFA_register
                    case 0x0a -> {                                                                 // DW_CFA_remember_state
                        if (remembered.size() >= MAX_REMEMBERED) throw CfiFormatException.of("more than %d nested DW_CFA_remember_state", MAX_REMEMBERED);
                        remembered.push(state.copy());
                    }
                    case 0x0b -> {                                                                 // DW_CFA_restore_state
                        if (remembered.isEmpty()) throw CfiFormatException.of("DW_CFA_restore_state without DW_CFA_remember_state");
                        state = remembered.pop();   // the CFA rule comes back with the registers (DWARF 5 §6.4.2.4)
                    }
                    case 0x0c -> { int r = c.ulebInt("register"); defCfa(r, c.uleb()); }       // DW_CFA_def_cfa
                    case 0x0d -> {                                                                 // DW_CFA_def_cfa_register
                        int r = c.ulebInt("register");
                        long off = state.cfa.kind() == CfaDefinition.Kind.REGISTER_OFFSET ? state.cfa.offset() : 0;
                        if (state.cfa.kind() == CfaDefinition.Kind.REGISTER_OFFSET) defCfa(r, off); else state.cfa = CfaDefinition.EXPRESSION;
                    }
                    case 0x0e -> defCfaOffset(c.uleb());                                          // DW_CFA_def_cfa_offset
                    case 0x0f -> state.cfa = CfaExpressions.cfa(block(c));                         // DW_CFA_def_cfa_expression
                    case 0x10 -> { int r = c.ulebInt("register"); block(c); set(r, RegisterRule.EXPRESSION); } // DW_CFA_expression
                    case 0x11 -> { int r = c.ulebInt("register"); set(r, RegisterRule.offset(c.sleb() * da)); } // DW_CFA_offset_extended_sf
                    case 0x12 -> { int r = c.ulebInt("register"); defCfa(r, c.sleb() * da); }   // DW_CFA_def_cfa_sf
                    case 0x13 -> defCfaOffset(c.sleb() * da);                                     // DW_CFA_def_cfa_offset_sf
                    case 0x14 -> { int r = c.ulebInt("register"); set(r, new RegisterRule(RegisterRule.Kind.VAL_OFFSET, c.uleb() * da)); } // DW_CFA_val_offset
                    case 0x15 -> { int r = c.ulebInt("register"); set(r, new RegisterRule(RegisterRule.Kind.VAL_OFFSET, c.sleb() * da)); } // DW_CFA_val_offset_sf
                    case 0x16 -> { int r = c.ulebInt("register"); block(c); set(r, RegisterRule.EXPRESSION); } // DW_CFA_val_expression
                    case 0x2e -> c.uleb();                                                         // DW_CFA_GNU_args_size
                    case 0x2f -> { int r = c.ulebInt("register"); set(r, RegisterRule.offset(-c.uleb() * da)); } // DW_CFA_GNU_negative_offset_extended
                    default -> throw CfiFormatException.of("unknown DW_CFA opcode 0x%02x at 0x%x", op, c.pos() - 1);
                }
                if (inCie && !rows.isEmpty()) throw CfiFormatException.of("the CIE's initial instructions advance the location");
            }
        }

        private static byte[] block(CfiCursor c) {
            int n = c.ulebInt("expression length");
            if (n > c.limit() - c.pos()) throw CfiFormatException.of("expression of %d bytes runs past the record", n);
            byte[] b = new byte[n];
            for (int i = 0; i < n; i++) b[i] = (byte) c.u8();
            return b;
        }
    }
}
