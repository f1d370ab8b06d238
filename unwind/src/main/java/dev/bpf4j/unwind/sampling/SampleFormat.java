package dev.bpf4j.unwind.sampling;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

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
     * Parses the body of a PERF_RECORD_SAMPLE ({@code record} starts at its header). Fails with a
     * message naming the field when the record is shorter than its own fields say.
     */
    public PerfRecord.Sample parseSample(byte[] record, int length) {
        ByteBuffer b = ByteBuffer.wrap(record, 0, length).order(ByteOrder.LITTLE_ENDIAN);
        b.position(HEADER_SIZE);
        try {
            long ip = b.getLong();
            int pid = b.getInt();
            int tid = b.getInt();
            long time = b.getLong();
            int cpu = -1;
            if (programRegs) {
                cpu = b.getInt();
                b.getInt(); // res
            }
            long period = programRegs ? b.getLong() : 0;
            long[] chain = new long[0];
            if (callchain) {
                long nr = b.getLong();
                if (nr < 0 || nr > (length - b.position()) / 8) throw new IllegalArgumentException("callchain of " + nr + " entries in a " + length + "-byte record");
                chain = new long[(int) nr];
                for (int i = 0; i < nr; i++) chain[i] = b.getLong();
            }
            long abi = b.getLong();
            long[] regs = null;
            if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
                // Dumped in increasing bit order of the mask.
                regs = new long[PERF_REG_X86_64_MAX];
                long mask = regsMask();
                for (int r = 0; r < PERF_REG_X86_64_MAX; r++) if ((mask & (1L << r)) != 0) regs[r] = b.getLong();
            }
            long size = b.getLong();
            byte[] stack = new byte[0];
            if (size != 0) {
                if (size < 0 || size > length - b.position() - 8) throw new IllegalArgumentException("user stack of " + size + " bytes in a " + length + "-byte record");
                int at = b.position();
                long dynSize = b.getLong(at + (int) size);
                if (dynSize < 0 || dynSize > size) throw new IllegalArgumentException("user stack dyn_size " + dynSize + " > size " + size);
                stack = java.util.Arrays.copyOfRange(record, at, at + (int) dynSize);
            }
            return new PerfRecord.Sample(pid, tid, time, ip, period, regs, stack, chain, cpu);
        } catch (java.nio.BufferUnderflowException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("PERF_RECORD_SAMPLE of " + length + " bytes is truncated (at byte " + b.position() + ")");
        }
    }
}
