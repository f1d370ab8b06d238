package dev.bpf4j.jit.probe;

import dev.bpf4j.jit.runtime.ExecutableMemory;
import dev.bpf4j.runtime.NativeMemory;
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
 * retargets the site's {@code call} or {@code jmp} (or puts the original bytes back when none is left) with the
 * breakpoint-first protocol of {@link TextPoke}: safe while other threads run the function (see
 * there for the one window it leaves at sites of several displaced instructions).
 *
 * <p>{@link NativeProbes} serializes attach and detach. A thread already inside an old trampoline
 * finishes it: retired trampolines (with the displaced instructions' copy that threads trapped on
 * the int3 may be sent to), and the counters and env templates they point at, stay mapped and
 * registered for the life of the process (the kernel frees them after an RCU-tasks grace period,
 * which a user process cannot observe).
 */
final class NativeProbe {
    static final String MODULE = "bpf4j-probe";

    private final PatchSite site;
    private final List<ProbeLink> links = new ArrayList<>();
    private final List<Object> retired = new ArrayList<>();
    private final CodeRegion siteRegion;
    private NearCode trampoline;
    private CodeRegion trampolineRegion;
    private int generation, exitGeneration;
    /** Offset of the displaced instructions' copy in the live trampoline (-1: none). */
    private int copy = -1;
    /** The function's exits block (ReturnTrampoline): kept per function for the life of the process. */
    private final long exits;

    NativeProbe(PatchSite site) {
        this.site = site;
        // At the patched call (and pt_regs.ip) the traced function has no frame yet: return address at [rsp].
        int size = (int) (site.site() - site.function()) + PatchSite.LENGTH;
        this.siteRegion = new CodeRegion(site.function(), size, site.name(),
                ProbeMaps.moduleName(site.function()).orElse(MODULE), List.of(new UnwindRow(0, size, CfaRule.RETURN_AT_SP)));
        this.exits = NativeProbes.exitsBlock(site.function());
    }

    /** The function's exits block: exit handler, returns missed (shadow stack full), returns lost. */
    long exits() { return exits; }

    String name() { return site.name(); }

    PatchSite site() { return site; }

    synchronized boolean isEmpty() { return links.isEmpty(); }

    synchronized ProbeLink attach(ProbeProgram program, boolean atReturn) {
        for (ProbeLink l : links) {
            if (l.program().executable() == program.executable() && l.atReturn() == atReturn) {
                throw new IllegalStateException("program '" + program.name() + "' is already attached to " + (atReturn ? "the return of '" : "'") + site.name() + "'");
            }
        }
        ProbeLink link = new ProbeLink(this, program, atReturn);
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

    /** Generates the trampoline for the current links and points the site at it (or restores the original bytes). */
    private void rebuild() {
        byte[] now = site.current();
        boolean patched = trampoline != null;
        byte[] expected = patched ? site.patchTo(trampoline.address()) : site.original();
        if (!Arrays.equals(now, expected)) {
            throw new IllegalStateException(String.format("patch site of '%s' at 0x%x holds %s, expected %s: changed behind bpf4j's back",
                    site.name(), site.site(), HexFormat.ofDelimiter(" ").formatHex(now), HexFormat.ofDelimiter(" ").formatHex(expected)));
        }
        List<TrampolineEmitter.Call> calls = new ArrayList<>(), exitCalls = new ArrayList<>();
        for (ProbeLink l : links) (l.atReturn() ? exitCalls : calls).add(l.call());
        // a return handler is in place before any return is swapped, and cleared only once none is swapped any more
        long handler = NativeMemory.getLongVolatile(exits + ReturnTrampoline.HANDLER);
        if (!exitCalls.isEmpty()) installExitHandler(exitCalls);
        try {
            patch(calls, exitCalls);
        } catch (RuntimeException | Error e) {
            NativeMemory.getAndSetLong(exits + ReturnTrampoline.HANDLER, handler);   // the failed link's program must not run
            throw e;
        }
    }

    private void patch(List<TrampolineEmitter.Call> calls, List<TrampolineEmitter.Call> exitCalls) {
        boolean patched = trampoline != null;
        if (links.isEmpty()) {
            // a thread meeting the int3 does what the original bytes do: their copy in the retiring trampoline, or skip the nop
            long original = site.displaced() == null ? site.site() + PatchSite.LENGTH : trampoline.address() + copy;
            TextPoke.poke(site.site(), site.original(), original, false);
            CodeMap.global().unregister(siteRegion);
            retire();
            NativeMemory.getAndSetLong(exits + ReturnTrampoline.HANDLER, 0);
            return;
        }
        long swap = exitCalls.isEmpty() ? 0 : exits;
        int size = TrampolineEmitter.emit(site, calls, site.site(), swap).bytes().length;   // the size does not depend on the address
        TrampolineEmitter.Code[] emitted = new TrampolineEmitter.Code[1];
        NearCode code = NearCode.map(site.site(), size, at -> (emitted[0] = TrampolineEmitter.emit(site, calls, at, swap)).bytes());
        TrampolineEmitter.Code probe = emitted[0];
        CodeRegion region = new CodeRegion(code.address(), code.size(),
                "bpf_trampoline_" + site.name() + (generation++ == 0 ? "" : "_" + generation), MODULE, probe.rows());
        CodeMap.global().register(region);
        if (!patched) CodeMap.global().register(siteRegion);
        long[][] moves = patched ? new long[2][0] : innerBoundaries(code.address() + probe.copy());
        try {
            // a thread meeting the int3 is moved on as the new instruction moves it: called, or sent to the trampoline's start
            TextPoke.poke(site.site(), site.patchTo(code.address()), code.address(), !site.jumps(), moves[0], moves[1]);
        } catch (RuntimeException | Error e) {
            CodeMap.global().unregister(region);
            if (!patched) CodeMap.global().unregister(siteRegion);
            throw e;
        }
        retire();
        trampoline = code;
        trampolineRegion = region;
        copy = probe.copy();
        // threads that swapped their return address before still return through the trampoline: they find no handler
        if (exitCalls.isEmpty()) NativeMemory.getAndSetLong(exits + ReturnTrampoline.HANDLER, 0);
    }

    /**
     * Generates the exit handler for the current return programs and publishes it in the exits
     * block. The one it replaces stays mapped (a returning thread may have just read its address).
     */
    private void installExitHandler(List<TrampolineEmitter.Call> exitCalls) {
        TrampolineEmitter.Code h = TrampolineEmitter.emitExit(exitCalls);
        ExecutableMemory mem = ExecutableMemory.of(h.bytes());
        CodeRegion region = new CodeRegion(mem.address(), mem.size(), "bpf_uretprobe_" + site.name() + "_" + exitGeneration++, MODULE, h.rows());
        CodeMap.global().register(region);
        retired.add(mem);
        retired.add(region);
        NativeMemory.getAndSetLong(exits + ReturnTrampoline.HANDLER, mem.address());
    }

    /**
     * The boundaries strictly inside the 5 bytes between displaced instructions, and the same
     * instruction in the copy at {@code copy}: where a thread caught between two of them goes.
     */
    private long[][] innerBoundaries(long copy) {
        DisplacedInsns d = site.displaced();
        if (d == null) return new long[2][0];
        int[] offsets = d.copyOffsets();
        List<long[]> pairs = new ArrayList<>();
        for (int k = 0; k < offsets.length; k++) {
            int at = d.insns().get(k).offset();
            if (at > 0 && at < PatchSite.LENGTH) pairs.add(new long[]{site.site() + at, copy + offsets[k]});
        }
        long[][] out = new long[2][pairs.size()];
        for (int k = 0; k < pairs.size(); k++) {
            out[0][k] = pairs.get(k)[0];
            out[1][k] = pairs.get(k)[1];
        }
        return out;
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
