package dev.bpf4j.jit.probe;

import com.kenai.jffi.Library;
import dev.bpf4j.jit.compiler.Switches;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.CodeBuffer;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.maps.Cpus;
import dev.bpf4j.runtime.NativeMemory;

import java.util.ArrayList;
import java.util.List;

/**
 * A trampoline's hit count without a locked instruction: each CPU adds to its own counter inside a
 * restartable sequence ({@code rseq(2)}, registered by glibc 2.35+ for every thread it creates), as
 * the kernel's per-CPU program stats and tcmalloc's per-CPU caches do. A locked add is a full barrier
 * (it waits for the store buffer to drain): about 4 ns of a 15 ns hit on these machines.
 *
 * <pre>
 *  arm:   movabs rcx, &amp;rseq_cs; mov fs:[rseq + 8], rcx      rseq->rseq_cs = this sequence's descriptor
 *         movabs rdx, per-CPU counters
 *  start: mov eax, fs:[rseq + 4]                              rseq->cpu_id (u32: -1 or -2 when unregistered)
 *         cmp eax, possible CPUs; jae .shared
 *         shl eax, 6; add rdx, rax
 *         add qword [rdx], 1                                   the commit: one instruction, one cache line per CPU
 *  post:  mov qword fs:[rseq + 8], 0                          disarm
 *  ...
 *  .shared: lock add qword [rdx - PER_CPU + HITS], 1; jmp post    a thread without rseq
 *         ud1 edi, [rip + RSEQ_SIG]                            the 4 bytes before abort_ip must be the signature
 *  abort: lock add qword [rdx - PER_CPU + RESTARTS], 1       preempted, migrated or signalled inside
 *         jmp arm                                              [start, post): the kernel cleared rseq_cs; redo it all
 * </pre>
 * The add either happened before the preemption or not at all, so a restart never counts twice.
 * Without glibc's rseq ({@code __rseq_size} 0 or absent) every hit takes the locked add.
 */
final class PerCpuHits {
    private PerCpuHits() {}

    /** x86's RSEQ_SIG, the signature glibc registers: {@code ud1 0x53053053(%rip), %edi} ends with it. */
    private static final int RSEQ_SIG = 0x53053053;
    private static final int CPU_ID = 4, RSEQ_CS = 8;
    /** Counter stride: one cache line per CPU, no line shared between CPUs. */
    static final int STRIDE = 64;
    static final int CPUS = Math.max(1, Cpus.possible());
    /** fs-relative offset of this thread's {@code struct rseq}, or null when glibc does not register one. */
    private static final Integer RSEQ = rseqOffset();

    /**
     * Whether trampolines count per CPU: glibc registered rseq, and {@code -Dbpf4j.probe.perCpuHits=false}
     * (read at each trampoline's generation, for A/B timing) does not ask for the locked add.
     */
    static boolean available() { return RSEQ != null && Switches.on("bpf4j.probe.perCpuHits"); }

    private static Integer rseqOffset() {
        try {
            long size = Library.getDefault().getSymbolAddress("__rseq_size");
            long offset = Library.getDefault().getSymbolAddress("__rseq_offset");
            if (size == 0 || offset == 0 || NativeMemory.getInt(size) < 20) return null;   // not registered (tunable off, old glibc)
            long off = NativeMemory.getLong(offset);
            return off == (int) off && off + RSEQ_CS + 8 == (int) (off + RSEQ_CS + 8) ? (int) off : null;
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            return null;
        }
    }

    /** Where one {@link #count} is, for {@link #finish}: its arm, start and post offsets, the jae to patch, the descriptor's movabs. */
    private record Pending(int arm, int start, int post, int toShared, int descImm, int shared) {}

    /** What {@link #count} leaves to place after the trampoline's code: one tail per counter. */
    static final class Tails {
        private final List<Pending> pending = new ArrayList<>();
    }

    /**
     * Counts one hit on the per-CPU counters at {@code perCpu} (on the shared one {@code shared} bytes
     * before them, for a thread without rseq; restarts on {@link ProbeStats#RESTARTS} from there).
     * Clobbers rax, rcx, rdx and the flags.
     */
    static void count(X86Encoder e, CodeBuffer b, long perCpu, int shared, Tails tails) {
        int arm = e.position();
        e.movabs(X86Reg.RCX, Long.MIN_VALUE);                     /* movabs rcx, &rseq_cs (patched by finish) */
        int descImm = e.position() - 8;
        fs(b, 0x48, 0x89, 0x0c, RSEQ + RSEQ_CS);                  /* mov fs:[rseq + 8], rcx */
        e.movabs(X86Reg.RDX, perCpu);                             /* movabs rdx, per-CPU counters */
        int start = e.position();
        fs(b, -1, 0x8b, 0x04, RSEQ + CPU_ID);                     /* mov eax, fs:[rseq + 4] */
        e.aluRI(AluOp.CMP, false, X86Reg.RAX, CPUS);              /* cmp eax, cpus */
        int toShared = e.jccForward32(Cond.AE);                   /* jae .shared */
        e.shiftImm(Shift.SHL, false, X86Reg.RAX, 6);              /* shl eax, 6 (STRIDE) */
        e.aluRR(AluOp.ADD, true, X86Reg.RDX, X86Reg.RAX);         /* add rdx, rax */
        e.aluMI(AluOp.ADD, true, Mem.of(X86Reg.RDX, 0), 1);       /* add qword [rdx], 1 (the commit) */
        int post = e.position();
        fs(b, 0x48, 0xc7, 0x04, RSEQ + RSEQ_CS);                  /* mov qword fs:[rseq + 8], 0 */
        b.emit32(0);
        tails.pending.add(new Pending(arm, start, post, toShared, descImm, shared));
    }

    /**
     * Places the tails after the trampoline's last instruction (the code starts at {@code base}): the
     * shared counter's path, the signature, the restart (counted) and the 32-byte aligned {@code struct rseq_cs}.
     * Returns where the tails' code ends (their descriptors follow it).
     */
    static int finish(X86Encoder e, CodeBuffer b, long base, Tails tails) {
        List<int[]> aborts = new ArrayList<>();
        for (Pending p : tails.pending) {
            e.bind32(p.toShared());                               /* .shared: (rdx = per-CPU counters) */
            e.movImm32(X86Reg.RCX, 1);                            /* mov ecx, 1 */
            e.aluMR(AluOp.ADD, true, Mem.of(X86Reg.RDX, -p.shared()), X86Reg.RCX, true); /* lock add [rdx - shared], rcx */
            e.jmpRel32(p.post());                                 /* jmp post */
            b.emit8(0x0f); b.emit8(0xb9); b.emit8(0x3d);          /* ud1 edi, [rip + RSEQ_SIG]: never runs */
            b.emit32(RSEQ_SIG);
            aborts.add(new int[] {e.position()});                 /* abort: (rdx = per-CPU counters: set before start) */
            e.movImm32(X86Reg.RCX, 1);                            /* mov ecx, 1 */
            e.aluMR(AluOp.ADD, true, Mem.of(X86Reg.RDX, -p.shared() + ProbeStats.RESTARTS), X86Reg.RCX, true); /* lock add [rdx - shared + restarts], rcx */
            e.jmpRel32(p.arm());                                  /* jmp arm */
        }
        int end = e.position();
        for (int i = 0; i < tails.pending.size(); i++) {
            Pending p = tails.pending.get(i);
            do b.emit8(0xcc); while (b.size() % 32 != 0);         /* int3 padding: at least one, where listings stop */
            long desc = base + b.size();
            patch64(b, p.descImm(), desc);
            b.emit32(0);                                          /* version */
            b.emit32(0);                                          /* flags */
            b.emit64(base + p.start());                           /* start_ip */
            b.emit64(p.post() - p.start());                       /* post_commit_offset */
            b.emit64(base + aborts.get(i)[0]);                    /* abort_ip */
        }
        return end;
    }

    /** Sum of the per-CPU counters at {@code perCpu}. */
    static long sum(long perCpu) {
        long n = 0;
        for (int c = 0; c < CPUS; c++) n += NativeMemory.getLongVolatile(perCpu + (long) c * STRIDE);
        return n;
    }

    private static void patch64(CodeBuffer b, int at, long v) {
        b.patch32(at, (int) v);
        b.patch32(at + 4, (int) (v >>> 32));
    }

    /** {@code fs: [REX] op modrm disp32} with ModRM {@code modrm} (mod 00, rm 100) and a SIB of no base, no index. */
    private static void fs(CodeBuffer b, int rex, int op, int modrm, int disp) {
        b.emit8(0x64);                                            /* fs: */
        if (rex >= 0) b.emit8(rex);
        b.emit8(op);
        b.emit8(modrm);
        b.emit8(0x25);                                            /* SIB: no base, no index */
        b.emit32(disp);
    }
}
