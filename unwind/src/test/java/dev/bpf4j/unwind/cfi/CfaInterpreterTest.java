package dev.bpf4j.unwind.cfi;

import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.unwind.cfi.CfiBytes.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** CIE/FDE parsing and the DW_CFA interpreter on hand-written records, one opcode family at a time. */
class CfaInterpreterTest {
    /** x86-64's usual CIE program: CFA = rsp + 8, return address at CFA - 8. */
    static final byte[] X86_CIE = bytes(0x0c, 0x07, 0x08, 0x90, 0x01);

    private static CfiRow row(ModuleCfi m, long pc) { return m.rowFor(pc).orElseThrow(() -> new AssertionError("no row at 0x" + Long.toHexString(pc))); }

    @Test
    void aFramePointerFunctionWithZrAndPcrelSdata4() {
        CfiBytes b = new CfiBytes();
        int cie = b.cie("zR", 1, -8, 16, bytes(0x1b), X86_CIE);
        // push rbp (1 byte); mov rbp, rsp (3 bytes); ...; leave at +0x20; ret at +0x21.
        b.fde(cie, 0x1b, 0x5000, 0x22, new byte[0], bytes(
                0x41, 0x0e, 0x10,        // advance 1; def_cfa_offset 16
                0x86, 0x02,              // offset rbp at cfa-16
                0x43, 0x0d, 0x06,        // advance 3; def_cfa_register rbp
                0x5c, 0x0c, 0x07, 0x08)); // advance 0x1c; def_cfa rsp+8
        ModuleCfi m = b.module();
        assertThat(row(m, 0x5000).toString()).isEqualTo("0x5000-0x5001 cfa=r7+8 rbp=same_value ra=[cfa-8]");
        assertThat(row(m, 0x5001).toString()).isEqualTo("0x5001-0x5004 cfa=r7+16 rbp=[cfa-16] ra=[cfa-8]");
        assertThat(row(m, 0x5010).toString()).isEqualTo("0x5004-0x5020 cfa=r6+16 rbp=[cfa-16] ra=[cfa-8]");
        assertThat(row(m, 0x5021).toString()).isEqualTo("0x5020-0x5022 cfa=r7+8 rbp=[cfa-16] ra=[cfa-8]");
        assertThat(m.rowFor(0x5022)).isEmpty();
        assertThat(m.rowFor(0x4fff)).isEmpty();
        assertThat(row(m, 0x5010).usable()).isTrue();
    }

    @Test
    void zplrWithPersonalityAndLsdaSkippedAndUdata4Pointers() {
        CfiBytes b = new CfiBytes();
        // 'P': encoding 0x9b (indirect pcrel sdata4) + 4 bytes; 'L': 0x1b; 'R': 0x03 (absolute udata4).
        int cie = b.cie("zPLR", 1, -8, 16, bytes(0x9b, 1, 2, 3, 4, 0x1b, 0x03), X86_CIE);
        b.fde(cie, 0x03, 0x7000, 0x10, bytes(9, 9, 9, 9), bytes(0x44, 0x0e, 0x20));
        ModuleCfi m = b.module();
        Fde fde = m.fdeFor(0x7004).orElseThrow();
        assertThat(fde.cie().augmentation()).isEqualTo("zPLR");
        assertThat(fde.cie().lsdaEncoding()).isEqualTo(0x1b);
        assertThat(fde.cie().fdeEncoding()).isEqualTo(0x03);
        assertThat(fde.pcBegin()).isEqualTo(0x7000);
        assertThat(row(m, 0x7004).cfa()).isEqualTo(CfaDefinition.registerOffset(7, 32));
    }

    @Test
    void rememberRestoreStateRestoreSameValueUndefinedAndRegister() {
        CfiBytes b = new CfiBytes();
        int cie = b.cie("zR", 1, -8, 16, bytes(0x1b), X86_CIE);
        b.fde(cie, 0x1b, 0x1_0000, 0x100, new byte[0], bytes(
                0x41, 0x0e, 0x10, 0x86, 0x02,   // +1: cfa rsp+16, rbp at cfa-16
                0x0a,                            // remember_state
                0x41, 0x0e, 0x08, 0xc6,          // +2: cfa rsp+8, restore rbp (to the CIE's: same value)
                0x41, 0x0b,                      // +3: restore_state
                0x41, 0x07, 0x10,                // +4: undefined ra
                0x41, 0x08, 0x10,                // +5: same_value ra
                0x41, 0x09, 0x06, 0x07,          // +6: rbp in register rsp
                0x41, 0x06, 0x06,                // +7: restore_extended rbp
                0x41, 0x14, 0x06, 0x02,          // +8: val_offset rbp = cfa-16
                0x41, 0x2e, 0x20,                // +9: GNU_args_size (ignored)
                0x02, 0x10,                      // advance_loc1 16 -> 0x19
                0x12, 0x06, 0x7e,                // def_cfa_sf rbp, -2 * -8 = 16
                0x03, 0x00, 0x01,                // advance_loc2 256 would pass the end: clamped
                0x13, 0x7f));
        ModuleCfi m = b.module();
        assertThat(row(m, 0x1_0001).rbp()).isEqualTo(RegisterRule.offset(-16));
        assertThat(row(m, 0x1_0002).rbp()).isEqualTo(RegisterRule.SAME_VALUE);
        assertThat(row(m, 0x1_0002).cfa().offset()).isEqualTo(8);
        assertThat(row(m, 0x1_0003).rbp()).isEqualTo(RegisterRule.offset(-16));
        assertThat(row(m, 0x1_0003).cfa().offset()).isEqualTo(16);
        assertThat(row(m, 0x1_0004).returnAddress()).isEqualTo(RegisterRule.UNDEFINED);
        assertThat(row(m, 0x1_0004).outermost()).isTrue();
        assertThat(row(m, 0x1_0005).returnAddress()).isEqualTo(RegisterRule.SAME_VALUE);
        assertThat(row(m, 0x1_0005).usable()).isFalse();
        assertThat(row(m, 0x1_0006).rbp()).isEqualTo(new RegisterRule(RegisterRule.Kind.REGISTER, 7));
        assertThat(row(m, 0x1_0007).rbp()).isEqualTo(RegisterRule.SAME_VALUE);
        assertThat(row(m, 0x1_0008).rbp()).isEqualTo(new RegisterRule(RegisterRule.Kind.VAL_OFFSET, -16));
        assertThat(row(m, 0x1_0019).cfa()).isEqualTo(CfaDefinition.registerOffset(6, 16));
        assertThat(row(m, 0x1_00ff).pcEnd()).isEqualTo(0x1_0100);
    }

    @Test
    void thePltExpressionAndASavedStackPointerAreRecognisedOtherExpressionsAreUnusable() {
        CfiBytes b = new CfiBytes();
        int cie = b.cie("zR", 1, -8, 16, bytes(0x1b), X86_CIE);
        // binutils' .plt FDE: CFA = rsp + 8 + ((rip & 15) >= 11 ? 8 : 0)
        b.fde(cie, 0x1b, 0x3000, 0x40, new byte[0], bytes(0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22));
        b.fde(cie, 0x1b, 0x3100, 0x10, new byte[0], bytes(0x0f, 0x04, 0x77, 0xa0, 0x01, 0x06));       // [rsp + 160]
        b.fde(cie, 0x1b, 0x3200, 0x10, new byte[0], bytes(0x0f, 0x02, 0x76, 0x00, 0x10, 0x06, 0x02, 0x76, 0x78)); // breg6 0 (no deref); rbp expression
        ModuleCfi m = b.module();
        assertThat(row(m, 0x3000).cfa()).isEqualTo(new CfaDefinition(CfaDefinition.Kind.PLT, 7, 8, 11));
        assertThat(row(m, 0x3000).usable()).isTrue();
        assertThat(row(m, 0x3100).cfa()).isEqualTo(new CfaDefinition(CfaDefinition.Kind.DEREF, 7, 160, 0));
        assertThat(row(m, 0x3200).cfa()).isEqualTo(CfaDefinition.EXPRESSION);
        assertThat(row(m, 0x3200).rbp()).isEqualTo(RegisterRule.EXPRESSION);
        assertThat(row(m, 0x3200).usable()).isFalse();
    }

    @Test
    void searchTableAndScanAgreeAcrossManyFdes() {
        CfiBytes b = new CfiBytes();
        int cie = b.cie("zR", 1, -8, 16, bytes(0x1b), X86_CIE);
        for (int i = 99; i >= 0; i--) b.fde(cie, 0x1b, 0x10_000 + i * 0x40L, 0x30, new byte[0], bytes(0x41, 0x0e, 0x10 + i));
        ModuleCfi withTable = b.module();
        ModuleCfi scanned = ModuleCfi.of("t", b.ehFrame(), CfiBytes.EH_VADDR, null, 0);
        for (long pc = 0xff00; pc < 0x11a00; pc += 7) {
            assertThat(withTable.rowFor(pc)).as("0x%x", pc).isEqualTo(scanned.rowFor(pc));
            long inFn = (pc - 0x10_000) % 0x40;
            assertThat(withTable.rowFor(pc).isPresent()).isEqualTo(pc >= 0x10_000 && pc < 0x10_000 + 100 * 0x40 && inFn < 0x30);
        }
        assertThat(row(withTable, 0x10_000 + 5 * 0x40 + 2).cfa().offset()).isEqualTo(0x10 + 5);
    }

    @Test
    void malformedRecordsGiveClearErrors() {
        assertError(bytes(0x0b), "DW_CFA_restore_state without DW_CFA_remember_state");
        assertError(bytes(0x3d), "unknown DW_CFA opcode 0x3d");
        byte[] deep = new byte[70];
        java.util.Arrays.fill(deep, (byte) 0x0a);
        assertError(deep, "more than 64 nested DW_CFA_remember_state");
        assertError(bytes(0x0f, 0x7f), "expression of 127 bytes runs past the record");
        assertError(bytes(0x0e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), "ULEB128");

        // A length running past the section; a CIE pointer that points forward.
        CfiBytes b = new CfiBytes();
        int cie = b.cie("zR", 1, -8, 16, bytes(0x1b), X86_CIE);
        int fde = b.fde(cie, 0x1b, 0x5000, 0x10, new byte[0], new byte[0]);
        byte[] eh = b.ehFrame();
        byte[] longer = eh.clone();
        longer[fde] = (byte) 0xf0;
        assertThatThrownBy(() -> ModuleCfi.of("t", longer, CfiBytes.EH_VADDR, b.hdr(), CfiBytes.HDR_VADDR).rowFor(0x5000))
                .isInstanceOf(CfiFormatException.class).hasMessageContaining(".eh_frame FDE at 0x" + Integer.toHexString(fde))
                .hasMessageContaining("runs past the section");
        byte[] forward = eh.clone();
        forward[fde + 4] = (byte) 0xf0; forward[fde + 5] = (byte) 0xff; forward[fde + 6] = (byte) 0xff; forward[fde + 7] = (byte) 0xff;
        assertThatThrownBy(() -> ModuleCfi.of("t", forward, CfiBytes.EH_VADDR, b.hdr(), CfiBytes.HDR_VADDR).rowFor(0x5000))
                .isInstanceOf(CfiFormatException.class).hasMessageContaining("CIE pointer");
        byte[] version = eh.clone();
        version[cie + 8] = 7;
        assertThatThrownBy(() -> ModuleCfi.of("t", version, CfiBytes.EH_VADDR, b.hdr(), CfiBytes.HDR_VADDR).rowFor(0x5000))
                .isInstanceOf(CfiFormatException.class).hasMessageContaining("CIE at 0x0: unsupported version 7");
        // Without a table, a broken record ends the one scan: FDEs before it still work.
        ModuleCfi scanned = ModuleCfi.of("t", longer, CfiBytes.EH_VADDR, null, 0);
        assertThat(scanned.rowFor(0x5000)).isEmpty();
        assertThat(scanned.scanError()).contains(".eh_frame record at 0x" + Integer.toHexString(fde)).contains("runs past the section");
        byte[] hdr = b.hdr();
        hdr[0] = 2;
        assertThatThrownBy(() -> ModuleCfi.of("t", eh, CfiBytes.EH_VADDR, hdr, CfiBytes.HDR_VADDR))
                .isInstanceOf(CfiFormatException.class).hasMessage(".eh_frame_hdr: version 2 (expected 1)");
    }

    private static void assertError(byte[] fdeInstructions, String message) {
        CfiBytes b = new CfiBytes();
        int cie = b.cie("zR", 1, -8, 16, bytes(0x1b), X86_CIE);
        int fde = b.fde(cie, 0x1b, 0x5000, 0x10, new byte[0], fdeInstructions);
        ModuleCfi m = b.module();
        assertThatThrownBy(() -> m.rowFor(0x5000)).isInstanceOf(CfiFormatException.class)
                .hasMessageContaining(".eh_frame FDE at 0x" + Integer.toHexString(fde) + " (pc 0x5000)")
                .hasMessageContaining(message);
        assertThat(List.of(m.fdeFor(0x5000).orElseThrow().offset())).containsExactly((long) fde);
    }
}
