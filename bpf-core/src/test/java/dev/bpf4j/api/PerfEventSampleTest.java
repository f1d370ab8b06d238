package dev.bpf4j.api;

import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.PtRegs;
import dev.bpf4j.unwind.sampling.PerfRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A sample's perf registers (perf_regs.h order) land in the x86-64 pt_regs fields of struct bpf_perf_event_data. */
class PerfEventSampleTest {
    @Test
    void perfRegistersBecomePtRegsThenPeriodAndAddr() {
        long[] regs = new long[24];
        for (int r = 0; r < 24; r++) regs[r] = r < 12 || r >= 16 ? 0x100 + r : 0;
        PerfRecord.Sample s = new PerfRecord.Sample(1, 2, 3, 0x108, 777, regs, new byte[16], new long[0]);
        PerfEventSample e = PerfEventSample.of(s);
        PtRegs p = e.regs();
        assertThat(new long[] {p.ax(), p.bx(), p.cx(), p.dx(), p.si(), p.di(), p.bp(), p.sp(), p.ip(), p.flags(), p.cs(), p.ss()})
                .containsExactly(0x100, 0x101, 0x102, 0x103, 0x104, 0x105, 0x106, 0x107, 0x108, 0x109, 0x10a, 0x10b);
        assertThat(new long[] {p.r8(), p.r9(), p.r10(), p.r11(), p.r12(), p.r13(), p.r14(), p.r15()})
                .containsExactly(0x110, 0x111, 0x112, 0x113, 0x114, 0x115, 0x116, 0x117);
        assertThat(p.origAx()).isEqualTo(-1);
        assertThat(e.samplePeriod()).isEqualTo(777);
        assertThat(e.addr()).isZero();

        long ctx = NativeMemory.allocate(PerfEventSample.SIZE);
        try {
            e.write(ctx);
            assertThat(PerfEventSample.SIZE).isEqualTo(184);
            assertThat(NativeMemory.getLong(ctx + PtRegs.OFF_IP)).isEqualTo(0x108);
            assertThat(NativeMemory.getLong(ctx + PtRegs.OFF_DI)).isEqualTo(0x105);
            assertThat(NativeMemory.getLong(ctx + 168)).isEqualTo(777);
            assertThat(NativeMemory.getLong(ctx + 176)).isZero();
        } finally {
            NativeMemory.free(ctx);
        }
    }

    @Test
    void aSampleWithoutUserRegistersHasZeroRegistersAndNoStack() {
        PerfEventSample e = PerfEventSample.of(new PerfRecord.Sample(1, 2, 3, 0xffffffff81000000L, 5, null, new byte[0], new long[0]));
        assertThat(e.regs().ip()).isZero();
        assertThat(e.regs().sp()).isZero();
        assertThat(e.stack()).isEmpty();
        assertThat(e.samplePeriod()).isEqualTo(5);
    }
}
