package dev.bpf4j.unwind.sampling;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import static dev.bpf4j.unwind.sampling.PerfAbi.*;

/**
 * What each PERF_RECORD_SAMPLE holds — IP | TID | TIME | [CPU | PERIOD] | [CALLCHAIN] | REGS_USER (bp,
 * sp, ip, or all of them) | STACK_USER — and how to read one back. The body is laid out in the order of
 * {@code perf_output_sample()}: ip, pid/tid, time, cpu, period, callchain, user regs, user stack.
 *
 * @param callchain also ask for the kernel's own user callchain (to compare with our unwind)
 * @param stackSize bytes of user stack copied per sample, a multiple of 8 (16 KiB by default)
 * @param programRegs what a perf_event program needs besides: every user register (its
 *                    {@code pt_regs}), PERF_SAMPLE_PERIOD (its {@code sample_period}) and
 *                    PERF_SAMPLE_CPU (its {@code bpf_get_smp_processor_id})
 */
public record SampleFormat(boolean callchain, int stackSize, boolean programRegs) {
    public static final int DEFAULT_STACK_SIZE = 16 * 1024;
    /** The kernel refuses more: a record's size is a u16. */
    public static final int MAX_STACK_SIZE = 65528 - 1024;

    public SampleFormat {
        if (stackSize <= 0 || stackSize % 8 != 0 || stackSize > MAX_STACK_SIZE) {
            throw new IllegalArgumentException("user stack size " + stackSize + ": expected a multiple of 8 in [8, " + MAX_STACK_SIZE + "]");
        }
    }

    /** bp, sp and ip only, no period: enough to unwind. */
    public SampleFormat(boolean callchain, int stackSize) { this(callchain, stackSize, false); }

    public static SampleFormat defaults() { return new SampleFormat(false, DEFAULT_STACK_SIZE); }

    public long sampleType() {
        long t = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        if (programRegs) t |= PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
        return callchain ? t | PERF_SAMPLE_CALLCHAIN : t;
    }

    public long regsMask() { return programRegs ? REGS_ALL_X86_64 : REGS_BP_SP_IP; }

    /** A copy with {@link #programRegs()} set. */
    public SampleFormat withProgramRegs() { return new SampleFormat(callchain, stackSize, true); }

    /** The largest record this format makes: header, fixed fields, the callchain at its cap, regs, stack. */
    public int maxRecordSize() {
        int callchainMax = callchain ? 8 + 8 * 128 : 0;
        return HEADER_SIZE + 8 + 8 + 8 + (programRegs ? 16 : 0) + callchainMax + 8 + Long.bitCount(regsMask()) * 8 + 8 + stackSize + 8;
    }

    /**
     * A record's bytes where they lie — in the perf ring, read in place, or in an array — at offsets
     * from the record's header. Reading in place spares the reader a copy of the whole record (a
     * 16 KiB stack dump is in every one): only the {@code dyn_size} bytes of stack the kernel really
     * copied leave the ring, once, into the sample's own array.
     */
    public interface RecordBytes {
        /** The little-endian word at {@code at}. */
        long getLong(int at);

        void copy(int at, byte[] dst, int dstOffset, int length);
    }

    private static final long[] NO_CHAIN = new long[0];
    private static final byte[] NO_STACK = new byte[0];

    /** Parses a PERF_RECORD_SAMPLE held in {@code record} (from its header on). */
    public PerfRecord.Sample parseSample(byte[] record, int length) {
        ByteBuffer b = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
        return parseSample(new RecordBytes() {
            @Override public long getLong(int at) { return b.getLong(at); }
            @Override public void copy(int at, byte[] dst, int dstOffset, int n) { System.arraycopy(record, at, dst, dstOffset, n); }
        }, Math.min(length, record.length));
    }

    /**
     * Parses the body of a PERF_RECORD_SAMPLE of {@code length} bytes. Fails with a message naming
     * the field when the record is shorter than its own fields say.
     */
    public PerfRecord.Sample parseSample(RecordBytes r, int length) {
        int at = HEADER_SIZE;
        long ip = word(r, at, length);
        long pidTid = word(r, at += 8, length);
        long time = word(r, at += 8, length);
        at += 8;
        int cpu = -1;
        long period = 0;
        if (programRegs) {
            cpu = (int) word(r, at, length);   // then a u32 res
            period = word(r, at += 8, length);
            at += 8;
        }
        long[] chain = NO_CHAIN;
        if (callchain) {
            long nr = word(r, at, length);
            at += 8;
            if (nr < 0 || nr > (length - at) / 8) throw new IllegalArgumentException("callchain of " + nr + " entries in a " + length + "-byte record");
            chain = new long[(int) nr];
            for (int i = 0; i < nr; i++, at += 8) chain[i] = r.getLong(at);
        }
        long abi = word(r, at, length);
        at += 8;
        long[] regs = null;
        if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
            // Dumped in increasing bit order of the mask.
            regs = new long[PERF_REG_X86_64_MAX];
            long mask = regsMask();
            for (int reg = 0; reg < PERF_REG_X86_64_MAX; reg++) {
                if ((mask & (1L << reg)) != 0) {
                    regs[reg] = word(r, at, length);
                    at += 8;
                }
            }
        }
        long size = word(r, at, length);
        at += 8;
        byte[] stack = NO_STACK;
        if (size != 0) {
            if (size < 0 || size > length - at - 8) throw new IllegalArgumentException("user stack of " + size + " bytes in a " + length + "-byte record");
            long dynSize = r.getLong(at + (int) size);
            if (dynSize < 0 || dynSize > size) throw new IllegalArgumentException("user stack dyn_size " + dynSize + " > size " + size);
            stack = new byte[(int) dynSize];
            r.copy(at, stack, 0, (int) dynSize);
        }
        return new PerfRecord.Sample((int) pidTid, (int) (pidTid >>> 32), time, ip, period, regs, stack, chain, cpu);
    }

    /**
     * Bytes of the {@code sample_id} every other record ends with when {@code sample_id_all} is set
     * (only with {@link #programRegs()}, see {@link PerfEventAttr}): pid/tid and time, then the CPU.
     */
    int sampleIdSize() { return 16 + (programRegs ? 8 : 0); }

    /**
     * Parses a PERF_RECORD_COMM of {@code length} bytes: pid, tid, the NUL-terminated name padded to
     * 8 bytes, then the {@code sample_id} whose time says from when the name holds.
     */
    public PerfRecord.Comm parseComm(RecordBytes r, int misc, int length) {
        int end = length - sampleIdSize();   // the name lies between the ids and the sample_id
        if (end < HEADER_SIZE + 16) throw new IllegalArgumentException("PERF_RECORD_COMM of " + length + " bytes is truncated");
        long pidTid = r.getLong(HEADER_SIZE);
        byte[] name = new byte[end - HEADER_SIZE - 8];
        r.copy(HEADER_SIZE + 8, name, 0, name.length);
        int n = 0;
        while (n < name.length && n < 15 && name[n] != 0) n++;
        long time = r.getLong(end + 8);
        return new PerfRecord.Comm((int) pidTid, (int) (pidTid >>> 32), time, Arrays.copyOf(name, n),
                (misc & PERF_RECORD_MISC_COMM_EXEC) != 0);
    }

    /** The word at {@code at}, or a clear error when the record ends before it. */
    private static long word(RecordBytes r, int at, int length) {
        if (at + 8 > length) throw new IllegalArgumentException("PERF_RECORD_SAMPLE of " + length + " bytes is truncated (at byte " + at + ")");
        return r.getLong(at);
    }
}
