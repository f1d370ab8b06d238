package dev.bpf4j.unwind.sampling;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The ring reader and the sample parser over rings built by hand, as the kernel would write them. */
class RingReaderTest {
    private static final SampleFormat FORMAT = new SampleFormat(true, 64);

    private static byte[] stack(int n, int seed) {
        byte[] s = new byte[n];
        for (int i = 0; i < n; i++) s[i] = (byte) (seed + i);
        return s;
    }

    private static List<PerfRecord> drain(RingReader r) {
        List<PerfRecord> out = new ArrayList<>();
        r.drain(out::add);
        return out;
    }

    @Test
    void readsSamplesAndLostRecordsAndGivesBackTheTail() {
        ByteRing ring = new ByteRing(1024);
        RingReader reader = new RingReader(ring, FORMAT);
        ring.write(ByteRing.sample(FORMAT, 10, 11, 1234, 0x401000, 0x7ff0, 0x7fe0, stack(40, 1), new long[] {PerfAbi.PERF_CONTEXT_USER, 0x401000, 0x402000}));
        ring.write(ByteRing.lost(7, 3));
        List<PerfRecord> got = drain(reader);
        assertThat(got).hasSize(2);
        PerfRecord.Sample s = (PerfRecord.Sample) got.get(0);
        assertThat(s.pid()).isEqualTo(10);
        assertThat(s.tid()).isEqualTo(11);
        assertThat(s.time()).isEqualTo(1234);
        assertThat(s.ip()).isEqualTo(0x401000);
        assertThat(s.hasRegs()).isTrue();
        assertThat(new long[] {s.bp(), s.sp(), s.regIp()}).containsExactly(0x7ff0, 0x7fe0, 0x401000);
        assertThat(s.stack()).isEqualTo(stack(40, 1));
        assertThat(s.userCallchain()).containsExactly(0x401000, 0x402000);
        assertThat(got.get(1)).isEqualTo(new PerfRecord.Lost(7, 3));
        assertThat(ring.tail).isEqualTo(ring.head);
        assertThat(drain(reader)).isEmpty();
    }

    @Test
    void recordsThatWrapAroundTheRingEndAreReassembled() {
        ByteRing ring = new ByteRing(256);
        RingReader reader = new RingReader(ring, FORMAT);
        int recordSize = ByteRing.sample(FORMAT, 1, 1, 0, 0, 0, 0, new byte[0], new long[0]).length;
        assertThat(recordSize).isEqualTo(152);
        // 1st at [0, 152); LOST at [152, 176); 2nd at [176, 328) wraps: 80 bytes at the end, 72 at the start.
        ring.write(ByteRing.sample(FORMAT, 1, 2, 100, 0x1000, 1, 2, stack(64, 5), new long[0]));
        assertThat(drain(reader)).hasSize(1);
        ring.write(ByteRing.lost(9, 1));
        ring.write(ByteRing.sample(FORMAT, 1, 3, 200, 0x2000, 3, 4, stack(64, 9), new long[0]));
        List<PerfRecord> got = drain(reader);
        assertThat(got).hasSize(2);
        assertThat(got.get(0)).isEqualTo(new PerfRecord.Lost(9, 1));
        PerfRecord.Sample s = (PerfRecord.Sample) got.get(1);
        assertThat(s.tid()).isEqualTo(3);
        assertThat(s.time()).isEqualTo(200);
        assertThat(s.sp()).isEqualTo(4);
        assertThat(s.stack()).isEqualTo(stack(64, 9));
        assertThat(ring.tail).isEqualTo(328);
        // Once more round: a sample at [328, 480), a LOST at [480, 504); then one with a callchain at
        // [504, 672) that wraps after its header: 8 bytes at the end, 160 at the start.
        ring.write(ByteRing.sample(FORMAT, 1, 4, 300, 0x3000, 5, 6, stack(8, 0), new long[0]));
        ring.write(ByteRing.lost(1, 42));
        got = drain(reader);
        assertThat(got).hasSize(2);
        assertThat(got.get(1)).isEqualTo(new PerfRecord.Lost(1, 42));
        ring.write(ByteRing.sample(FORMAT, 1, 5, 400, 0x4000, 7, 8, stack(64, 3), new long[] {PerfAbi.PERF_CONTEXT_USER, 0x4000}));
        got = drain(reader);
        assertThat(got).hasSize(1);
        PerfRecord.Sample last = (PerfRecord.Sample) got.get(0);
        assertThat(last.stack()).isEqualTo(stack(64, 3));
        assertThat(last.userCallchain()).containsExactly(0x4000);
        assertThat(ring.tail).isEqualTo(ring.head).isEqualTo(672);
    }

    @Test
    void aTruncatedOrCorruptRecordIsAClearError() {
        ByteRing ring = new ByteRing(256);
        RingReader reader = new RingReader(ring, FORMAT);
        ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(PerfAbi.PERF_RECORD_SAMPLE).putShort((short) 0).putShort((short) 16).putLong(0x1000);
        ring.write(b.array());
        assertThatThrownBy(() -> drain(reader)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");

        ByteRing ring2 = new ByteRing(256);
        ByteBuffer h = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(PerfAbi.PERF_RECORD_LOST).putShort((short) 0).putShort((short) 4);
        ring2.write(h.array());
        assertThatThrownBy(() -> drain(new RingReader(ring2, FORMAT))).hasMessageContaining("corrupt ring record at 0: size 4");
    }

    @Test
    void aSampleForAPerfEventProgramHasItsCpuPeriodAndEveryUserRegister() {
        SampleFormat f = new SampleFormat(false, 64, true);
        assertThat(f.regsMask()).isEqualTo(0xff0fffL);
        assertThat(f.sampleType() & PerfAbi.PERF_SAMPLE_PERIOD).isNotZero();
        assertThat(f.sampleType() & PerfAbi.PERF_SAMPLE_CPU).isNotZero();
        int size = 8 + 8 + 8 + 8 + 8 + 8 + 8 + 20 * 8 + 8 + 16 + 8;
        ByteBuffer b = ByteRing.le(size);
        b.putInt(PerfAbi.PERF_RECORD_SAMPLE).putShort((short) 0).putShort((short) size);
        b.putLong(0x401000).putInt(10).putInt(11).putLong(1234);                       // ip, pid, tid, time
        b.putInt(1).putInt(0).putLong(10_101_010);                                     // cpu, res, period
        b.putLong(2);                                                                  // PERF_SAMPLE_REGS_ABI_64
        for (int r = 0; r < 24; r++) if (r < 12 || r >= 16) b.putLong(0x100 + r);      // AX..SS, R8..R15 in bit order
        b.putLong(16).putLong(0x1111).putLong(0x2222).putLong(16);                     // stack: size, 16 bytes, dyn_size
        ByteRing ring = new ByteRing(512);
        ring.write(b.array());
        PerfRecord.Sample s = (PerfRecord.Sample) drain(new RingReader(ring, f)).get(0);
        assertThat(s.period()).isEqualTo(10_101_010);
        assertThat(s.cpu()).isEqualTo(1);
        assertThat(new int[] {s.pid(), s.tid()}).containsExactly(10, 11);
        assertThat(s.reg(0)).isEqualTo(0x100);                       // ax
        assertThat(new long[] {s.bp(), s.sp(), s.regIp()}).containsExactly(0x106, 0x107, 0x108);
        assertThat(s.reg(11)).isEqualTo(0x10b);                      // ss
        assertThat(s.reg(12)).isZero();                              // ds: not in the mask
        assertThat(s.reg(16)).isEqualTo(0x110);                      // r8
        assertThat(s.reg(23)).isEqualTo(0x117);                      // r15
        assertThat(s.stack()).hasSize(16);
        assertThat(f.maxRecordSize()).isGreaterThanOrEqualTo(size);
    }

    /** A PERF_RECORD_COMM as Linux writes it with sample_id_all: ids, name padded to 8, then pid/tid, time, cpu. */
    private static byte[] comm(int pid, int tid, String name, long time, boolean exec) {
        int padded = (name.length() + 1 + 7) / 8 * 8, size = 8 + 8 + padded + 24;
        ByteBuffer b = ByteRing.le(size);
        b.putInt(PerfAbi.PERF_RECORD_COMM).putShort((short) (exec ? PerfAbi.PERF_RECORD_MISC_COMM_EXEC : 0)).putShort((short) size);
        b.putInt(pid).putInt(tid).put(name.getBytes());
        b.position(16 + padded);
        b.putInt(pid).putInt(tid).putLong(time).putInt(1).putInt(0);
        return b.array();
    }

    @Test
    void aRenameOrExecRecordGivesTheNewNameAndItsTime() {
        SampleFormat f = new SampleFormat(false, 64, true);
        long renames = PerfAbi.FLAG_COMM | PerfAbi.FLAG_COMM_EXEC | PerfAbi.FLAG_SAMPLE_ID_ALL;
        long flags = ByteBuffer.wrap(new PerfEventAttr(PerfAbi.PERF_COUNT_SW_CPU_CLOCK, true, 99, f).encode())
                .order(ByteOrder.LITTLE_ENDIAN).getLong(40);
        assertThat(flags & renames).as("comm, comm_exec and sample_id_all asked for").isEqualTo(renames);
        long plain = ByteBuffer.wrap(new PerfEventAttr(PerfAbi.PERF_COUNT_SW_CPU_CLOCK, true, 99, FORMAT).encode())
                .order(ByteOrder.LITTLE_ENDIAN).getLong(40);
        assertThat(plain & renames).as("without a program: records as before").isZero();
        ByteRing ring = new ByteRing(512);
        ring.write(comm(10, 11, "renamed", 5000, false));
        ring.write(comm(10, 10, "a-name-of-15-ch", 6000, true));   // 16 bytes with the NUL: padded to 16
        List<PerfRecord> got = drain(new RingReader(ring, f));
        PerfRecord.Comm rename = (PerfRecord.Comm) got.get(0), exec = (PerfRecord.Comm) got.get(1);
        assertThat(new Object[] {rename.pid(), rename.tid(), new String(rename.comm()), rename.time(), rename.exec()})
                .containsExactly(10, 11, "renamed", 5000L, false);
        assertThat(new Object[] {exec.pid(), exec.tid(), new String(exec.comm()), exec.time(), exec.exec()})
                .containsExactly(10, 10, "a-name-of-15-ch", 6000L, true);
        ByteRing short_ = new ByteRing(64);
        ByteBuffer b = ByteRing.le(24);
        b.putInt(PerfAbi.PERF_RECORD_COMM).putShort((short) 0).putShort((short) 24);
        short_.write(b.array());
        assertThatThrownBy(() -> drain(new RingReader(short_, f))).hasMessageContaining("PERF_RECORD_COMM of 24 bytes is truncated");
    }

    @Test
    void aSampleWithoutUserRegistersHasNoStack() {
        SampleFormat f = new SampleFormat(false, 64);
        ByteBuffer b = ByteRing.le(48);
        b.putInt(PerfAbi.PERF_RECORD_SAMPLE).putShort((short) 0).putShort((short) 48);
        b.putLong(0x5000).putInt(1).putInt(2).putLong(3).putLong(0).putLong(0);   // abi NONE, stack size 0
        ByteRing ring = new ByteRing(256);
        ring.write(b.array());
        PerfRecord.Sample s = (PerfRecord.Sample) drain(new RingReader(ring, f)).get(0);
        assertThat(s.hasRegs()).isFalse();
        assertThat(s.stack()).isEmpty();
        assertThat(s.ip()).isEqualTo(0x5000);
    }

    @Test
    void attrEncodingMatchesTheKernelLayout() {
        byte[] a = PerfEventAttr.cpuClockAtFrequency(99, new SampleFormat(true, 16384)).encode();
        ByteBuffer b = ByteBuffer.wrap(a).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(a).hasSize(136);
        assertThat(b.getInt(0)).isEqualTo(1);             // PERF_TYPE_SOFTWARE
        assertThat(b.getInt(4)).isEqualTo(136);
        assertThat(b.getLong(8)).isEqualTo(0);            // cpu-clock
        assertThat(b.getLong(16)).isEqualTo(99);
        assertThat(b.getLong(24)).isEqualTo(0x1 | 0x2 | 0x4 | 0x20 | 0x1000 | 0x2000);
        assertThat(b.getLong(40)).isEqualTo(1L | 1L << 5 | 1L << 6 | 1L << 10 | 1L << 21 | 1L << 25);
        assertThat(b.getLong(80)).isEqualTo(0x1c0);
        assertThat(b.getInt(88)).isEqualTo(16384);
        assertThat(b.getInt(92)).isEqualTo(1);            // CLOCK_MONOTONIC
    }

    @Test
    void optionsRefuseARingTooSmallForTwoRecords() {
        assertThatThrownBy(() -> SamplerOptions.atFrequency(99).withFormat(new SampleFormat(false, 16384)).withDataPages(4))
                .hasMessageContaining("cannot hold two samples");
        assertThatThrownBy(() -> new SampleFormat(false, 12)).hasMessageContaining("multiple of 8");
    }
}
