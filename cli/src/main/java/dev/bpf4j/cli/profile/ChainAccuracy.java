package dev.bpf4j.cli.profile;

import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.FrameWalker;
import dev.bpf4j.unwind.SnapshotMemoryView;
import dev.bpf4j.unwind.profile.UnwoundSample;
import dev.bpf4j.unwind.sampling.PerfRecord;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongPredicate;

/**
 * How exact the chains of samples in a program's JIT code are. The program is a call chain
 * {@code functions[0] (main) -> functions[1] -> ... }: a sample whose ip lies in {@code functions[k]}
 * is exact when its next k return addresses lie in {@code functions[k-1] ... functions[0]} in that
 * order, then come the {@code outer} frames in order (the native callers of a probe's trampoline;
 * none for a program run from Java), and the one after leaves them all. Checked per sample for bpf4j's unwind, for the kernel's
 * own CALLCHAIN (when the sample has one) and for a plain frame-pointer walk of the same stack copy
 * (no unwind rows), to show what the rows buy.
 */
public final class ChainAccuracy implements Consumer<UnwoundSample> {
    private final List<CodeRegion> functions;
    private final List<LongPredicate> outer;
    private final FrameWalker naive = new FrameWalker(new CodeMap());
    private long inProgram, exact, withCallchain, callchainExact, naiveExact;
    /** Per place in a function (entry, after push rbp, in the frame, ret): samples with a callchain, and how many it got exact. */
    private final Map<String, long[]> callchainByPlace = new TreeMap<>();

    /** @param functions main first, then each callee of the chain */
    public ChainAccuracy(List<CodeRegion> functions) { this(functions, List.of()); }

    /**
     * @param outer tests of the return addresses that must follow main, innermost first (each is
     *              given the return address itself)
     */
    public ChainAccuracy(List<CodeRegion> functions, List<LongPredicate> outer) {
        this.functions = List.copyOf(functions);
        this.outer = List.copyOf(outer);
    }

    public record Result(long inProgram, long exact, long withCallchain, long callchainExact, long naiveExact, Map<String, long[]> callchainByPlace) {
        static String pct(long n, long of) { return of == 0 ? "n/a" : String.format("%.2f%%", 100.0 * n / of); }

        public String describe() { return describe("the chain's JIT code"); }

        /** As {@link #describe()}, naming where the samples counted were ({@code subject}). */
        public String describe(String subject) {
            return "samples in " + subject + ": " + inProgram
                    + "; exact chains: bpf4j " + exact + " (" + pct(exact, inProgram) + ")"
                    + ", kernel CALLCHAIN " + (withCallchain == 0 ? "not recorded" : callchainExact + "/" + withCallchain + " (" + pct(callchainExact, withCallchain) + ")")
                    + ", frame pointers alone " + naiveExact + " (" + pct(naiveExact, inProgram) + ")";
        }

        /** Where in a function the kernel's CALLCHAIN was sampled and how often it was exact there. */
        public String describeCallchainByPlace() {
            StringBuilder sb = new StringBuilder("kernel CALLCHAIN exact by place of the sample:");
            callchainByPlace.forEach((place, n) -> sb.append(' ').append(place).append(' ').append(n[1]).append('/').append(n[0]).append(';'));
            return sb.toString();
        }
    }

    @Override public synchronized void accept(UnwoundSample u) {
        int level = level(u.sample().ip(), false);
        if (level < 0) return;
        inProgram++;
        if (isExact(u.trace().ips(), level)) exact++;
        PerfRecord.Sample s = u.sample();
        long[] chain = s.userCallchain();
        if (chain.length > 0) {
            withCallchain++;
            boolean ok = isExact(java.util.Arrays.stream(chain).boxed().toList(), level);
            if (ok) callchainExact++;
            long[] n = callchainByPlace.computeIfAbsent(place(functions.get(level), s.ip()), k -> new long[2]);
            n[0]++;
            if (ok) n[1]++;
        }
        if (s.hasRegs()) {
            List<Long> walk = naive.walk(s.regIp(), s.sp(), s.bp(), SnapshotMemoryView.over(s.sp(), s.stack()));
            if (isExact(walk, level)) naiveExact++;
        }
    }

    public synchronized Result result() {
        Map<String, long[]> copy = new TreeMap<>();
        callchainByPlace.forEach((k, v) -> copy.put(k, v.clone()));
        return new Result(inProgram, exact, withCallchain, callchainExact, naiveExact, copy);
    }

    /** Which part of its function {@code ip} is in, by the JIT's unwind rows. */
    static String place(CodeRegion fn, long ip) {
        CfaRule rule = fn.ruleAt(ip);
        if (rule == null) return "no row";
        return switch (rule) {
            case RETURN_AT_SP -> ip == fn.start() ? "entry" : "ret";
            case RETURN_AT_SP_PLUS_8 -> "after push rbp";
            case FRAME_POINTER -> "in frame";
        };
    }

    /** Whether {@code ips} (innermost first) is the chain from {@code functions[level]} down to main, then the outer frames, then out. */
    boolean isExact(List<Long> ips, int level) {
        int end = level + 1 + outer.size();
        if (ips.size() < end || level(ips.get(0), false) != level) return false;
        for (int i = 1; i <= level; i++) if (level(ips.get(i), true) != level - i) return false;
        for (int k = 0; k < outer.size(); k++) if (!outer.get(k).test(ips.get(level + 1 + k))) return false;
        if (ips.size() == end) return true;
        long next = ips.get(end);
        return level(next, true) < 0 && (outer.isEmpty() || !outer.get(outer.size() - 1).test(next));
    }

    /** Which function holds {@code ip} (a return address is looked up at ip - 1); -1 for none. */
    private int level(long ip, boolean returnAddress) {
        long at = returnAddress ? ip - 1 : ip;
        for (int i = 0; i < functions.size(); i++) if (functions.get(i).contains(at)) return i;
        return -1;
    }
}
