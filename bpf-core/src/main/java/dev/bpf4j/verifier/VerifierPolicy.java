package dev.bpf4j.verifier;

import dev.bpf4j.runtime.ContextRules;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MapShapes;
import dev.bpf4j.runtime.PacketContext;
import dev.bpf4j.runtime.ReturnRange;

import java.util.Set;

/**
 * What the verifier assumes about a load.
 *
 * @param entryArgs      registers r1..rN set at entry
 * @param ctxEntry       r1 is a context pointer: a kernel program type's ctx, or the conformance
 *                       suites' memory block; otherwise r1..rN are plain values (scalars)
 * @param ctxFixedOffsets ctx accesses need constant offsets, as the kernel's {@code check_ctx_access}
 *                       (kernel program types); the conformance suites' memory block is run-time checked
 * @param packetContext  where ctx loads yield {@code PTR_TO_PACKET} and {@code PTR_TO_PACKET_END}, or null
 * @param allowPtrLeaks  the kernel's {@code allow_ptr_leaks} (bpf_token / CAP_PERFMON): pointer
 *                       comparisons, pointer bits returned or stored to maps; off by default, since a
 *                       pointer's value differs between engines and runs
 * @param maps           the maps whose handles constants may be: such an {@code lddw} is a {@code CONST_PTR_TO_MAP}
 * @param ctxRules       the program type's ctx access rules ({@link CtxAccess}); null: any constant offset below 4 KiB
 * @param returnRange    what r0 must hold at the main program's exit ({@code check_return_code}); null: anything
 * @param allowedHelpers the helper ids the program type may call ({@code get_func_proto}); null: every registered one
 */
record VerifierPolicy(int entryArgs, boolean ctxEntry, boolean ctxFixedOffsets, PacketContext packetContext, boolean allowPtrLeaks,
                      MapShapes maps, ContextRules ctxRules, ReturnRange returnRange, Set<Integer> allowedHelpers) {
    /**
     * Whether Linux may give this program's larger functions private stacks (kprobe, tracepoint,
     * perf_event, raw tracepoint programs): assumed for a kernel context without packet pointers,
     * so that the combined-stack rule ({@link CallStackCheck}) never refuses what Linux loads.
     */
    boolean privateStacks() { return ctxFixedOffsets && packetContext == null; }

    /**
     * Whether Linux's whole-program call walk ({@link CallStackCheck}) applies: only to a kernel
     * program type, whose verdict must be Linux's. The conformance suites' memory block and plain
     * values follow RFC 9669, which allows recursion and gives every call a frame of its own.
     */
    boolean kernelCallWalk() { return ctxFixedOffsets; }

    static VerifierPolicy from(LoadOptions options) {
        boolean kernel = options.entry() == EntryRegisters.CONTEXT || options.packetContext() != null;
        boolean ctx = kernel || options.entry() == EntryRegisters.MEMORY_BLOCK;
        return new VerifierPolicy(options.entryArgs(), ctx && options.entryArgs() >= 1, kernel, options.packetContext(), false, options.maps(),
                kernel ? options.ctxRules() : null, options.returnRange(), options.allowedHelpers());
    }
}
