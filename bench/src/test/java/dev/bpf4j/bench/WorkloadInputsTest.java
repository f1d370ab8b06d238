package dev.bpf4j.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WorkloadInputsTest {
    @Test
    void packetIsAValidIpv4TcpFrame() {
        byte[] p = WorkloadInputs.tcpPacket();
        assertThat(p).hasSize(64);
        assertThat(p[12] & 0xff).isEqualTo(0x08);
        assertThat(p[13] & 0xff).isEqualTo(0x00);
        assertThat(p[14] & 0xff).isEqualTo(0x45);
        assertThat(p[14 + 9]).isEqualTo((byte) 6);
        assertThat(((p[16] & 0xff) << 8) | (p[17] & 0xff)).isEqualTo(64 - 14);
        // A correct checksum sums (with itself included) to 0xffff, i.e. its complement is 0.
        assertThat(WorkloadInputs.checksum(p, 14, 20, 0)).isZero();
        long pseudo = sum16(p, 14 + 12, 8) + 6 + (64 - 34);
        assertThat(WorkloadInputs.checksum(p, 34, 64 - 34, pseudo)).isZero();
    }

    @Test
    void inputsAreDeterministic() {
        for (Workload w : Workload.values()) assertThat(w.input()).isEqualTo(w.input());
        assertThat(WorkloadInputs.randomBytes(32, 1)).isNotEqualTo(WorkloadInputs.randomBytes(32, 2));
    }

    private static long sum16(byte[] b, int off, int len) {
        long s = 0;
        for (int i = 0; i < len; i += 2) s += ((b[off + i] & 0xff) << 8) | (b[off + i + 1] & 0xff);
        return s;
    }
}
