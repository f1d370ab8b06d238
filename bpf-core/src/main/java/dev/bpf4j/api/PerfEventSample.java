package dev.bpf4j.api;

import dev.bpf4j.runtime.CurrentTask;
import dev.bpf4j.runtime.PtRegs;
import dev.bpf4j.unwind.sampling.PerfRecord;
import dev.bpf4j.unwind.sampling.TaskComms;
import dev.bpf4j.runtime.NativeMemory;

import static dev.bpf4j.unwind.sampling.PerfAbi.*;

/**
 * What a {@code BPF_PROG_TYPE_PERF_EVENT} program sees of one sample: the fields of
 * {@code struct bpf_perf_event_data} — the sampled thread's registers ({@code bpf_user_pt_regs_t},
 * x86-64 {@code struct pt_regs}), {@code sample_period} and {@code addr} — plus the copy of its user
 * stack from {@code regs.sp()} up, which {@code bpf_get_stackid}/{@code bpf_get_stack} unwind, and
 * the sampled thread itself, which the current-task helpers describe as Linux's {@code current}
 * ({@code bpf_get_current_pid_tgid}, {@code bpf_get_current_comm}, {@code bpf_get_smp_processor_id}).
 *
 * @param task the sampled thread: its ids, the CPU it ran on, its name
 */
public record PerfEventSample(CurrentTask task, PtRegs regs, long samplePeriod, long addr, byte[] stack) {
    /** {@code sizeof(struct bpf_perf_event_data)}. */
    public static final int SIZE = PtRegs.SIZE + 16;
    public static final int OFF_SAMPLE_PERIOD = PtRegs.SIZE;
    public static final int OFF_ADDR = PtRegs.SIZE + 8;
    /**
     * {@code orig_ax} of registers saved by an interrupt: the cpu-clock sample is taken from the
     * timer interrupt, whose entry stores -1 there ("no syscall to restart").
     */
    public static final long ORIG_AX_INTERRUPT = -1;

    public PerfEventSample {
        java.util.Objects.requireNonNull(task);
    }

    /** The sampled thread's kernel tid. */
    public int tid() { return task.pid(); }

    /** As {@link #of(PerfRecord.Sample, TaskComms)} with the process-wide name cache. */
    public static PerfEventSample of(PerfRecord.Sample s) { return of(s, TaskComms.shared()); }

    /**
     * From a sampler record taken with every user register ({@code SampleFormat.programRegs}).
     * A sample without user registers (taken in a kernel thread: bpf4j samples user space only)
     * gets all-zero registers, so a program sees {@code ip == 0} and no stack. {@code addr} is 0 as
     * for every software clock event (it is the data address of memory events). The thread's name
     * comes from {@code comms} when the program first asks for it: the name the thread had at the sample's time.
     */
    public static PerfEventSample of(PerfRecord.Sample s, TaskComms comms) {
        CurrentTask task = new CurrentTask(s.pid(), s.tid(), s.cpu(), () -> comms.comm(s.pid(), s.tid(), s.time()));
        if (!s.hasRegs()) {
            return new PerfEventSample(task, new PtRegs(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ORIG_AX_INTERRUPT,
                    0, 0, 0, 0, 0), s.period(), 0, new byte[0]);
        }
        PtRegs regs = new PtRegs(s.reg(23), s.reg(22), s.reg(21), s.reg(20),   // r15, r14, r13, r12 (PERF_REG_X86_R12 = 20)
                s.reg(PERF_REG_X86_BP), s.reg(1), s.reg(19), s.reg(18),             // bp, bx, r11, r10
                s.reg(17), s.reg(16), s.reg(0), s.reg(2), s.reg(3), s.reg(4), s.reg(5), // r9, r8, ax, cx, dx, si, di
                ORIG_AX_INTERRUPT, s.regIp(), s.reg(10), s.reg(9), s.sp(), s.reg(11)); // orig_ax, ip, cs, flags, sp, ss
        return new PerfEventSample(task, regs, s.period(), 0, s.stack());
    }

    /** The {@value #SIZE}-byte native layout written at {@code address}. */
    void write(long address) {
        regs.write(address);
        NativeMemory.putLong(address + OFF_SAMPLE_PERIOD, samplePeriod);
        NativeMemory.putLong(address + OFF_ADDR, addr);
    }
}
