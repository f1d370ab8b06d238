package dev.bpf4j.kernel;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;

/**
 * Whether this process may use bpf(2). The probe is what a differential test needs: loading the
 * smallest program ({@code r0 = 0; exit}) as BPF_PROG_TYPE_SOCKET_FILTER. The answer is computed
 * once per JVM. {@code -Dbpf4j.kernel=off} makes it "no" without asking the kernel (how tests check
 * what users without bpf() see).
 */
public final class KernelBpf {
    private KernelBpf() {}

    /** The probe's outcome; {@code reason} says why bpf() cannot be used (or what worked). */
    public record Availability(boolean available, String reason) {}

    private static volatile Availability cached;

    public static boolean available() { return availability().available(); }

    /** The system property that, set to {@code off}, makes bpf() count as refused. */
    public static final String SWITCH = "bpf4j.kernel";

    public static Availability availability() {
        if ("off".equals(System.getProperty(SWITCH))) return new Availability(false, "bpf() use is switched off (-D" + SWITCH + "=off)");
        Availability a = cached;
        if (a == null) cached = a = probe();
        return a;
    }

    private static Availability probe() {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")
                || !System.getProperty("os.arch", "").matches("amd64|x86_64")) {
            return new Availability(false, "bpf(2) is only wired up for Linux x86-64, this is "
                    + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        }
        byte[] insns = Insn.encodeAll(new Insn[] {
            new Insn(Opcodes.ALU64 | Opcodes.MOV | Opcodes.K, 0, 0, 0, 0), // r0 = 0
            new Insn(Opcodes.JMP | Opcodes.EXIT, 0, 0, 0, 0),              // exit
        });
        try {
            int fd = BpfSyscall.progLoad(ProgLoadRequest.of(ProgLoadRequest.BPF_PROG_TYPE_SOCKET_FILTER, "bpf4j_probe", insns));
            BpfSyscall.close(fd);
            return new Availability(true, "bpf(BPF_PROG_LOAD) works");
        } catch (KernelBpfException e) {
            return new Availability(false, "bpf(BPF_PROG_LOAD) of 'r0 = 0; exit' failed with " + e.errnoName()
                    + (e.errno() == SyscallErrno.EPERM ? " (needs root or CAP_BPF; sysctl kernel.unprivileged_bpf_disabled refuses everyone else)" : "")
                    + (e.errno() == SyscallErrno.ENOSYS ? " (kernel built without CONFIG_BPF_SYSCALL, or seccomp)" : ""));
        } catch (LinkageError | RuntimeException e) {
            return new Availability(false, "cannot call bpf(2) through jffi: " + e);
        }
    }
}
