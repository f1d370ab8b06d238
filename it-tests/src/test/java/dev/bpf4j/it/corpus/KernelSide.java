package dev.bpf4j.it.corpus;

import dev.bpf4j.api.RunOptions;
import dev.bpf4j.api.RunResult;
import dev.bpf4j.kernel.KernelBpf;
import dev.bpf4j.kernel.object.KernelObject;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.MapSpec;
import dev.bpf4j.runtime.BpfException;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A corpus case in the Linux kernel ({@link KernelObject}), as an {@link Outcome}. Only this class
 * touches bpf4j-kernel, so {@link KernelCorpusTest} still loads (and skips) in the surefire execution
 * that leaves bpf4j-kernel off the class path.
 */
final class KernelSide {
    private KernelSide() {}

    /** False in the default surefire execution, which leaves bpf4j-kernel off the class path. */
    static boolean onClassPath() {
        try {
            Class.forName("dev.bpf4j.kernel.KernelBpf", false, KernelSide.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Null when this process may use bpf(), else why not. */
    static String unavailableReason() {
        KernelBpf.Availability a = KernelBpf.availability();
        return a.available() ? null : a.reason();
    }

    /** Linux's words when a kernel does not offer a helper to a program type. */
    private static final Pattern HELPER_NOT_OFFERED = Pattern.compile("program of this type cannot use helper (\\S+)");

    /**
     * Skips the calling test when {@code kernelMessage} says this kernel does not offer a helper the program
     * calls: builds differ (Linux 6.18.44 here refuses bpf_xdp_adjust_meta in XDP programs), and a program
     * Linux cannot load has nothing to compare.
     */
    static void assumeHelperOffered(Object what, String kernelMessage) {
        Matcher m = kernelMessage == null ? null : HELPER_NOT_OFFERED.matcher(kernelMessage);
        boolean lacking = m != null && m.find();
        assumeTrue(!lacking, () -> what + ": this kernel (Linux " + System.getProperty("os.version") + ") does not offer "
                + m.group(1) + " to the program's type, so there is nothing to compare");
    }

    static Outcome outcome(CorpusCase c) {
        BpfObjectSpec spec = BpfObjectSpec.read(c.path());
        try (KernelObject k = load(c, spec)) {
            List<String> runs = new ArrayList<>();
            for (RunOptions o : c.runs()) {
                try {
                    RunResult r = k.run(c.program(), o);
                    runs.add("retval=" + r.retval() + (r.dataOut() == null ? "" : " data_out=" + HexFormat.of().formatHex(r.dataOut()))
                            + (r.ctxOut() == null ? "" : " ctx_out=" + HexFormat.of().formatHex(r.ctxOut())));
                } catch (BpfException e) {
                    runs.add("error " + e.getMessage());
                }
            }
            Map<String, List<String>> maps = new LinkedHashMap<>();
            k.dump().forEach((name, entries) -> maps.put(name, Outcome.lines(entries, spec.map(name).type().isPercpu())));
            return new Outcome(runs, maps);
        }
    }

    /** {@link RedirectMapCases} in Linux: the updates' errnos, the runs, the maps, as {@link RedirectMapCases#outcome}. */
    static Outcome redirectMapOutcome() {
        CorpusCase c = RedirectMapCases.CASE;
        try (KernelObject k = KernelObject.load(BpfObjectSpec.read(c.path()), List.of(c.program()))) {
            List<String> lines = new ArrayList<>();
            for (var list : List.of(RedirectMapCases.TARGETS, RedirectMapCases.UPDATES)) {
                for (RedirectMapCases.Update u : list) {
                    int errno = 0;
                    try {
                        dev.bpf4j.kernel.BpfSyscall.mapUpdate(k.mapFd(u.map()), u.keyBytes(), u.value(), u.flags());
                    } catch (BpfException e) { // not KernelBpfException: the verifier would load it with this class
                        errno = ((dev.bpf4j.kernel.KernelBpfException) e).errno();
                    }
                    lines.add(RedirectMapCases.line(u, errno));
                }
            }
            for (RunOptions o : c.runs()) {
                RunResult r = k.run(c.program(), o);
                lines.add("retval=" + r.retval() + (r.dataOut() == null ? "" : " data_out=" + HexFormat.of().formatHex(r.dataOut())));
            }
            Map<String, List<String>> maps = new LinkedHashMap<>();
            k.dump().forEach((name, entries) -> maps.put(name, Outcome.lines(entries, false)));
            return new Outcome(lines, maps);
        }
    }

    /** BPF_MAP_CREATE's errno (0: created) for type, key_size, value_size, max_entries, map_flags. */
    static int createErrno(int[] c) {
        try {
            int fd = dev.bpf4j.kernel.BpfSyscall.mapCreate(c[0], c[1], c[2], c[3], c[4], "m");
            dev.bpf4j.kernel.BpfSyscall.close(fd);
            return 0;
        } catch (BpfException e) {
            return ((dev.bpf4j.kernel.KernelBpfException) e).errno();
        }
    }

    private static KernelObject load(CorpusCase c, BpfObjectSpec spec) {
        try {
            return KernelObject.load(spec, List.of(c.program()));
        } catch (BpfException e) {
            assumeHelperOffered(c, e.getMessage());
            throw e;
        }
    }

    /** The kernel's reason for refusing {@code program} (its verifier log), or null when it loads. */
    static String refusal(BpfObjectSpec spec, String program) {
        try (KernelObject k = KernelObject.load(spec, List.of(program))) {
            return null;
        } catch (BpfException e) {
            return e.getMessage();
        }
    }
}
