package dev.bpf4j.kernel;

import java.util.Objects;

/**
 * What BPF_PROG_LOAD needs: the program type, the expected attach type, the instruction bytes
 * (8-byte little-endian slots), the license (GPL unlocks the GPL-only helpers) and a name (at most
 * 15 bytes reach the kernel). {@code logLevel} 0 asks for a log only when the kernel refuses.
 * {@code btfFd} (0: none) with {@code funcInfo} ({@code struct bpf_func_info} records, 8 bytes each)
 * and {@code lineInfo} ({@code struct bpf_line_info}, 16 bytes each) describe the functions as
 * libbpf passes them; the kernel needs func_info for programs that pass callbacks (BPF_PSEUDO_FUNC).
 */
public record ProgLoadRequest(int progType, int expectedAttachType, byte[] insns, String license,
                              String name, int progFlags, int logLevel, int btfFd, byte[] funcInfo, byte[] lineInfo) {
    /** sizeof(struct bpf_func_info) and sizeof(struct bpf_line_info). */
    public static final int FUNC_INFO_SIZE = 8, LINE_INFO_SIZE = 16;

    /** enum bpf_prog_type values bpf4j uses. */
    public static final int BPF_PROG_TYPE_SOCKET_FILTER = 1, BPF_PROG_TYPE_XDP = 6,
            BPF_PROG_TYPE_RAW_TRACEPOINT = 17, BPF_PROG_TYPE_SYSCALL = 31;

    /** prog_flags BPF_F_SLEEPABLE: the kernel accepts BPF_PROG_TYPE_SYSCALL programs only with it. */
    public static final int BPF_F_SLEEPABLE = 1 << 4;

    public ProgLoadRequest {
        Objects.requireNonNull(insns, "insns");
        Objects.requireNonNull(license, "license");
        Objects.requireNonNull(name, "name");
        if (insns.length == 0 || insns.length % 8 != 0) {
            throw new IllegalArgumentException("instruction bytes must be a non-empty multiple of 8, not " + insns.length);
        }
        funcInfo = funcInfo == null ? new byte[0] : funcInfo;
        lineInfo = lineInfo == null ? new byte[0] : lineInfo;
        if (funcInfo.length % FUNC_INFO_SIZE != 0 || lineInfo.length % LINE_INFO_SIZE != 0) {
            throw new IllegalArgumentException("func_info / line_info must be whole records, not " + funcInfo.length + " / " + lineInfo.length + " bytes");
        }
    }

    /** A request without BTF. */
    public ProgLoadRequest(int progType, int expectedAttachType, byte[] insns, String license, String name, int progFlags, int logLevel) {
        this(progType, expectedAttachType, insns, license, name, progFlags, logLevel, 0, null, null);
    }

    /** A GPL program of {@code progType} with no attach type, no flags, log only on rejection. */
    public static ProgLoadRequest of(int progType, String name, byte[] insns) {
        return new ProgLoadRequest(progType, 0, insns, "GPL", name, 0, 0);
    }

    /**
     * A GPL BPF_PROG_TYPE_SYSCALL program: r1 is user memory (ctx_in) that BPF_PROG_TEST_RUN copies in
     * and back out. The kernel insists such programs be flagged sleepable.
     */
    public static ProgLoadRequest syscall(String name, byte[] insns) {
        return new ProgLoadRequest(BPF_PROG_TYPE_SYSCALL, 0, insns, "GPL", name, BPF_F_SLEEPABLE, 0);
    }

    public ProgLoadRequest withLogLevel(int level) {
        return new ProgLoadRequest(progType, expectedAttachType, insns, license, name, progFlags, level, btfFd, funcInfo, lineInfo);
    }

    public ProgLoadRequest withExpectedAttachType(int type) {
        return new ProgLoadRequest(progType, type, insns, license, name, progFlags, logLevel, btfFd, funcInfo, lineInfo);
    }

    /** The program's BTF (a BPF_BTF_LOAD fd) and its func_info / line_info records. */
    public ProgLoadRequest withBtf(int fd, byte[] funcInfoRecords, byte[] lineInfoRecords) {
        return new ProgLoadRequest(progType, expectedAttachType, insns, license, name, progFlags, logLevel, fd, funcInfoRecords, lineInfoRecords);
    }

    public int insnCount() { return insns.length / 8; }
}
