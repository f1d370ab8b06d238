package dev.bpf4j.jit.probe;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.runtime.NativeMemory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Moves every other thread of the process out of the middle of the instructions a call is about to
 * displace — what Linux's optprobes get from {@code synchronize_rcu_tasks()}. With the int3 already
 * on the site's first byte no thread can enter them any more; a thread already inside (running, or
 * preempted between two of them) would resume in the middle of the new call. So each other thread
 * gets a real-time signal carrying a nonce ({@code rt_tgsigqueueinfo}, {@code SI_QUEUE}); {@link TrapHandler}
 * moves a thread whose ip is one of the inner instruction boundaries to the same instruction in the
 * displaced copy, and counts the signal. This waits until every signalled thread that still exists
 * has answered. A preempted thread answers when it next runs; a thread blocked in a system call
 * answers at once (SA_RESTART restarts the call).
 */
final class ThreadMoves {
    private ThreadMoves() {}

    private static final long SYS_GETTID = 186, SYS_RT_TGSIGQUEUEINFO = 297;
    private static final int SI_QUEUE = -1, SIGINFO_SIZE = 128;
    private static final CallContext SYSCALL_CC = CallContext.getCallContext(Type.SINT64,
            new Type[]{Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, false);
    private static final long SYSCALL = Library.getDefault().getSymbolAddress("syscall");
    /** How long to wait for the last thread to answer before giving up the patch. */
    static final long TIMEOUT_NANOS = 5_000_000_000L;

    /**
     * Signals every other thread and waits for all answers; the moves ({@code from[k]} to
     * {@code to[k]}) apply meanwhile. False when some thread did not answer in time.
     */
    /** Threads with the move signal pending (comm, tid, SigBlk): for the message when one does not answer. */
    static String pending() {
        StringBuilder out = new StringBuilder();
        for (long tid : threads()) {
            try {
                String comm = Files.readString(Path.of("/proc/self/task/" + tid + "/comm")).trim();
                String sigPnd = "", sigBlk = "";
                for (String line : Files.readAllLines(Path.of("/proc/self/task/" + tid + "/status"))) {
                    if (line.startsWith("SigPnd:")) sigPnd = line.substring(7).trim();
                    if (line.startsWith("SigBlk:")) sigBlk = line.substring(7).trim();
                }
                if (!sigPnd.isEmpty() && (Long.parseUnsignedLong(sigPnd, 16) & (1L << (TrapHandler.MOVE_SIGNAL - 1))) != 0) {
                    out.append(String.format(" %s (tid %d, SigBlk %s)", comm, tid, sigBlk));
                }
            } catch (IOException | RuntimeException e) {
                // the thread has exited
            }
        }
        return out.length() == 0 ? " none" : out.toString();
    }

    /** This thread's kernel id. */
    static long gettid() { return Invoker.getInstance().invokeN5(SYSCALL_CC, SYSCALL, SYS_GETTID, 0, 0, 0, 0); }

    /** Queues the move signal carrying {@code value} to thread {@code tid} of this process; 0 when sent. */
    static long signal(long tid, long value) {
        long info = NativeMemory.allocate(SIGINFO_SIZE);
        try {
            NativeMemory.setMemory(info, SIGINFO_SIZE, (byte) 0);
            NativeMemory.putInt(info, TrapHandler.MOVE_SIGNAL); // si_signo
            NativeMemory.putInt(info + 8, SI_QUEUE);      // si_code
            NativeMemory.putInt(info + 16, (int) ProcessHandle.current().pid()); // si_pid
            NativeMemory.putLong(info + 24, value);       // si_value
            return Invoker.getInstance().invokeN5(SYSCALL_CC, SYSCALL, SYS_RT_TGSIGQUEUEINFO, ProcessHandle.current().pid(), tid,
                    TrapHandler.MOVE_SIGNAL, info);
        } finally {
            NativeMemory.free(info);
        }
    }

    static boolean run(long[] from, long[] to) {
        TrapHandler.moves(from, to);
        long round = TrapHandler.startRound();
        try {
            long self = gettid();
            long start = TrapHandler.acks();
            List<Long> signalled = new ArrayList<>();
            for (long tid : threads()) {
                if (tid != self && signal(tid, round) == 0) signalled.add(tid);   // else the thread has just exited
            }
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            for (int spin = 0; ; spin++) {
                long answered = TrapHandler.acks() - start;
                if (answered >= signalled.size()) return true;
                if (spin % 64 == 63) {
                    signalled.removeIf(tid -> !Files.exists(Path.of("/proc/self/task/" + tid)));
                    if (answered >= signalled.size()) return true;
                    if (System.nanoTime() > deadline) return false;
                }
                Thread.yield();
            }
        } finally {
            TrapHandler.endRound();
            TrapHandler.moves(new long[0], new long[0]);
        }
    }

    private static List<Long> threads() {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            List<Long> out = new ArrayList<>();
            tasks.forEach(p -> out.add(Long.parseLong(p.getFileName().toString())));
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc/self/task: " + e, e);
        }
    }
}
