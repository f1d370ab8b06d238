package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.PacketContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.verifier.V.*;

/**
 * The kernel's check_max_stack_depth: call chains in the program's text and the stack they use
 * together. Each verdict and number was taken from Linux 6.18 (BPF_PROG_LOAD of the same slots as a
 * socket filter, privileged).
 */
class CallStackTest {
    private static Insn stdw(int off) { return new Insn(0x7a, 10, 0, off, 1); }

    /** {@code calls} nested calls (frames 0..calls), the innermost function {@code last}. */
    private static Object[] chain(int calls, Insn... last) {
        List<Object> p = new ArrayList<>();
        for (int i = 0; i < calls; i++) { p.add(callLocal(1)); p.add(EXIT); }
        p.add(last);
        return p.toArray();
    }

    /** main touches fp-{@code main}, calls f, which touches fp-{@code callee}. */
    private static Object[] twoFrames(int main, int callee) {
        return new Object[]{stdw(-main), callLocal(2), mov(0, 0), EXIT, stdw(-callee), mov(0, 0), EXIT};
    }

    /** A socket filter (an skb context): a kernel program type, so Linux's call walk applies. */
    private static final LoadOptions SOCKET_FILTER = OPTIONS.withEntry(EntryRegisters.CONTEXT).withPacketContext(PacketContext.SK_BUFF);
    /** The conformance suites' entry: RFC 9669's model, recursion allowed, a frame per call. */
    private static final LoadOptions MEMORY_BLOCK = OPTIONS.withEntry(EntryRegisters.MEMORY_BLOCK);

    private static void kernelAccepts(Object... parts) { accepted(prog(parts), SOCKET_FILTER, ValidatorFeatures.DEFAULT); }

    private static void kernelRejects(int pc, String reason, Object... parts) {
        rejected(prog(parts), SOCKET_FILTER, ValidatorFeatures.DEFAULT, pc, reason);
    }

    private static void rfcAccepts(Object... parts) {
        accepted(prog(parts));
        accepted(prog(parts), MEMORY_BLOCK, ValidatorFeatures.DEFAULT);
    }

    @Test
    void eightFramesAreTheLimitOnThePathsExplored() {
        for (LoadOptions o : List.of(OPTIONS, MEMORY_BLOCK, SOCKET_FILTER)) {
            accepted(prog(chain(7, mov(0, 0), EXIT)), o, ValidatorFeatures.DEFAULT);
            rejected(prog(chain(8, mov(0, 0), EXIT)), o, ValidatorFeatures.DEFAULT, 14, "the call stack of 9 frames is too deep");
        }
    }

    @Test
    void callsNoPathReachesCountToo() {
        // Linux walks every call in the text: a ninth frame behind a branch never taken is refused
        kernelRejects(16, "the call stack of 8 frames is too deep !", chain(7, mov(0, 0), jeq(0, 0, 1), callLocal(1), EXIT, mov(0, 0), EXIT));
        // and a function calling itself where no path lets it (recursion)
        kernelRejects(2, "the call stack of 8 frames is too deep !", mov(0, 0), jeq(0, 0, 1), callLocal(-3), EXIT);
    }

    @Test
    void framesShareFiveHundredTwelveBytes() {
        // depths round up to 16: 496 + 16 fits, 504 + 16 does not
        kernelAccepts(twoFrames(496, 8));
        kernelRejects(1, "combined stack size of 2 calls is 528. Too large", twoFrames(504, 8));
        kernelRejects(1, "combined stack size of 2 calls is 528", twoFrames(512, 8));
        kernelRejects(1, "combined stack size of 2 calls is 544", twoFrames(32, 512));
        // a function no path enters uses no stack
        kernelAccepts(stdw(-512), mov(0, 0), jeq(0, 0, 1), callLocal(2), mov(0, 0), EXIT, stdw(-8), mov(0, 0), EXIT);
    }

    @Test
    void theCallersFrameUsedThroughAnArgumentCountsForTheCaller() {
        // f writes main's fp-512 through r1: main's depth is 512, f's 0, so two frames fit
        kernelAccepts(movReg(1, 10), new Insn(0x07, 1, 0, 0, -512), callLocal(2), mov(0, 0), EXIT,
                new Insn(0x7a, 1, 0, 0, 1), mov(0, 0), EXIT);
    }

    @Test
    void tracingContextsMayHavePrivateStacks() {
        // Linux moves functions of 64 bytes or more of a perf_event program to private stacks; bpf4j
        // does not know which kernel program type a context without packet is, so it never refuses there
        LoadOptions ctx = OPTIONS.withEntry(EntryRegisters.CONTEXT);
        accepted(prog(twoFrames(512, 64)), ctx, ValidatorFeatures.DEFAULT);
        accepted(prog(twoFrames(512, 8)), ctx, ValidatorFeatures.DEFAULT);
        // a packet context is XDP or an skb program: never a private stack (Linux 6.18 refuses this one as XDP)
        LoadOptions xdp = ctx.withPacketContext(PacketContext.XDP_MD);
        rejected(prog(twoFrames(512, 64)), xdp, ValidatorFeatures.DEFAULT, 1, "combined stack size of 2 calls is 576");
    }

    @Test
    void theRfcModelKeepsRecursionAndAFramePerCall() {
        // the conformance suites (call-local-recursion-factorial, call-local-depth-8-ok) follow RFC 9669:
        // recursion is bounded by the 8 frames explored, each frame has 512 bytes of its own
        rfcAccepts(mov(0, 0), jeq(0, 0, 1), callLocal(-3), EXIT);
        rfcAccepts(twoFrames(512, 512));
        rfcAccepts(chain(7, mov(0, 0), jeq(0, 0, 1), callLocal(1), EXIT, mov(0, 0), EXIT));
        // recursion that really goes nine deep is refused by the exploration, for every entry
        Object[] deep = {mov(1, 9), callLocal(1), EXIT, // main: f(9)
                jeq(1, 0, 3), new Insn(0x17, 1, 0, 0, 1), callLocal(-3), EXIT, mov(0, 0), EXIT}; // f: r1 ? f(r1-1) : 0
        rejected(prog(deep), MEMORY_BLOCK, ValidatorFeatures.DEFAULT, 5, "the call stack of 9 frames is too deep");
        kernelRejects(5, "the call stack of 9 frames is too deep", deep);
    }
}
