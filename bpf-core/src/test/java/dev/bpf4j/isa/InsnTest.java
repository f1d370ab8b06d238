package dev.bpf4j.isa;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InsnTest {
    @Test
    void encodesLittleEndianWithDstInLowNibble() {
        // r0 = *(u32 *)(r1 + 4)  ->  61 10 04 00 00 00 00 00
        Insn ldx = new Insn(0x61, 0, 1, 4, 0);
        byte[] b = new byte[8];
        ldx.encode(b, 0);
        assertThat(b).containsExactly(0x61, 0x10, 0x04, 0, 0, 0, 0, 0);
        assertThat(Insn.decode(b, 0)).isEqualTo(ldx);
    }

    @Test
    void roundTripsNegativeOffsetAndImmediate() {
        Insn i = new Insn(0x15, 3, 0, -2, -123456);
        byte[] b = new byte[8];
        i.encode(b, 0);
        assertThat(Insn.decode(b, 0)).isEqualTo(i);
    }

    @Test
    void lddwCombinesBothSlots() {
        Insn lo = new Insn(Opcodes.LDDW, 1, 0, 0, 0x89abcdef);
        Insn hi = new Insn(0, 0, 0, 0, 0x01234567);
        assertThat(lo.imm64(hi)).isEqualTo(0x0123456789abcdefL);
    }

    @Test
    void truncatedBytecodeIsAClearError() {
        assertThatThrownBy(() -> Insn.decodeAll(new byte[12])).hasMessageContaining("not a multiple of 8");
    }
}
