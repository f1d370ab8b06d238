package dev.bpf4j.jit.probe;

import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.UnwindRow;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The probe on one function: its patch site and the programs attached to it. Every attach and
 * detach generates a new trampoline that calls the current programs in attach order, then
 * retargets the site's {@code call} (or puts the nop back when none is left) with one aligned
 * store through {@code /proc/self/mem}.
 *
 * <p>{@link NativeProbes} serializes attach and detach. Concurrency rule: attach and detach are safe while other threads run the traced function,
 * as long as none is executing the 5 patched bytes at the instant of the store (the kernel closes
 * that window with an int3 dance that needs a SIGTRAP handler the JVM does not give us). A thread
 * already inside an old trampoline finishes it: retired trampolines, and the counters and env
 * templates they point at, stay mapped and registered for the life of the process (the kernel
 * frees them after an RCU-tasks grace period, which a user process cannot observe).
 */
final class NativeProbe {
    static final String MODULE = "bpf4j-probe";

    private final PatchSite site;
    private final List<ProbeLink> links = new ArrayList<>();
    private final List<Object> retired = new ArrayList<>();
    private final CodeRegion siteRegion;
    private NearCode trampoline;
    private CodeRegion trampolineRegion;
    private int generation;

    NativeProbe(PatchSite site) {
        this.site = site;
        // At the patched call (and pt_regs.ip) the traced function has no frame yet: return address at [rsp].
        int size = (int) (site.site() - site.function()) + PatchSite.LENGTH;
        this.siteRegion = new CodeRegion(site.function(), size, site.name(),
                ProbeMaps.moduleName(site.function()).orElse(MODULE), List.of(new UnwindRow(0, size, CfaRule.RETURN_AT_SP)));
    }

    String name() { return site.name(); }

    PatchSite site() { return site; }

    synchronized boolean isEmpty() { return links.isEmpty(); }

    synchronized ProbeLink attach(ProbeProgram program) {
        for (ProbeLink l : links) {
            if (l.program().executable() == program.executable()) {
                throw new IllegalStateException("program '" + program.name() + "' is already attached to '" + site.name() + "'");
            }
        }
        ProbeLink link = new ProbeLink(this, program);
        links.add(link);
        try {
            rebuild();
        } catch (RuntimeException | Error e) {
            links.remove(link);
            link.released();
            throw e;
        }
        return link;
    }

    synchronized void detach(ProbeLink link) {
        if (!links.remove(link)) return;
        rebuild();
        retired.add(link);
        link.released();
    }

    /** Generates the trampoline for the current links and points the site at it (or restores the nop). */
    private void rebuild() {
        byte[] now = site.current();
        boolean patched = trampoline != null;
        byte[] expected = patched ? site.callTo(trampoline.address()) : PatchSite.NOP5;
        if (!Arrays.equals(now, expected)) {
            throw new IllegalStateException(String.format("patch site of '%s' at 0x%x holds %s, expected %s: changed behind bpf4j's back",
                    site.name(), site.site(), HexFormat.ofDelimiter(" ").formatHex(now), HexFormat.ofDelimiter(" ").formatHex(expected)));
        }
        if (links.isEmpty()) {
            ProcessText.write(site.site(), PatchSite.NOP5);
            CodeMap.global().unregister(siteRegion);
            retire();
            return;
        }
        List<TrampolineEmitter.Call> calls = new ArrayList<>();
        for (ProbeLink l : links) calls.add(l.call());
        TrampolineEmitter.Code probe = TrampolineEmitter.emit(site, calls);
        NearCode code = NearCode.map(site.site(), probe.bytes().length, at -> probe.bytes()); // position-independent: absolute targets only
        CodeRegion region = new CodeRegion(code.address(), code.size(),
                "bpf_trampoline_" + site.name() + (generation++ == 0 ? "" : "_" + generation), MODULE, probe.rows());
        CodeMap.global().register(region);
        if (!patched) CodeMap.global().register(siteRegion);
        ProcessText.write(site.site(), site.callTo(code.address()));
        retire();
        trampoline = code;
        trampolineRegion = region;
    }

    private void retire() {
        if (trampoline != null) {
            retired.add(trampoline);
            retired.add(trampolineRegion);
        }
        trampoline = null;
        trampolineRegion = null;
    }

    /** The live trampoline's code region (tests check its unwind rows). */
    synchronized CodeRegion trampolineRegion() { return trampolineRegion; }
}
