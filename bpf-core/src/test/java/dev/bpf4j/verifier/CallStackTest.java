package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.runtime.EntryRegisters;
import dev.bpf4j.runtime.LoadOptions;
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

    @Test
    void eightFramesAreTheLimitOnThePathsExplored() {
        accepted(prog(chain(7, mov(0, 0), EXIT)));
        rejected(prog(chain(8, mov(0, 0), EXIT)), 14, "the call stack of 9 frames is too deep");
    }

    @Test
    void callsNoPathReachesCountToo() {
        // Linux walks every call in the text: a ninth frame behind a branch never taken is refused
        rejected(prog(chain(7, mov(0, 0), jeq(0, 0, 1), callLocal(1), EXIT, mov(0, 0), EXIT)), 16,
                "the call stack of 8 frames is too deep !");
        // and a function calling itself where no path lets it (recursion)
        rejected(prog(mov(0, 0), jeq(0, 0, 1), callLocal(-3), EXIT), 2, "the call stack of 8 frames is too deep !");
    }

    @Test
    void framesShareFiveHundredTwelveBytes() {
        // depths round up to 16: 496 + 16 fits, 504 + 16 does not
        accepted(prog(twoFrames(496, 8)));
        rejected(prog(twoFrames(504, 8)), 1, "combined stack size of 2 calls is 528. Too large");
        rejected(prog(twoFrames(512, 8)), 1, "combined stack size of 2 calls is 528");
        rejected(prog(twoFrames(32, 512)), 1, "combined stack size of 2 calls is 544");
        // a function no path enters uses no stack
        accepted(prog(stdw(-512), mov(0, 0), jeq(0, 0, 1), callLocal(2), mov(0, 0), EXIT, stdw(-8), mov(0, 0), EXIT));
    }

    @Test
    void theCallersFrameUsedThroughAnArgumentCountsForTheCaller() {
        // f writes main's fp-512 through r1: main's depth is 512, f's 0, so two frames fit
        accepted(prog(movReg(1, 10), new Insn(0x07, 1, 0, 0, -512), callLocal(2), mov(0, 0), EXIT,
                new Insn(0x7a, 1, 0, 0, 1), mov(0, 0), EXIT));
    }

    @Test
    void tracingContextsMayHavePrivateStacks() {
        // Linux moves functions of 64 bytes or more of a perf_event program to private stacks; bpf4j
        // does not know which kernel program type a context without packet is, so it never refuses there
        LoadOptions ctx = OPTIONS.withEntry(EntryRegisters.CONTEXT);
        accepted(prog(twoFrames(512, 64)), ctx, ValidatorFeatures.DEFAULT);
        accepted(prog(twoFrames(512, 8)), ctx, ValidatorFeatures.DEFAULT);
        // a packet context is XDP or an skb program: never a private stack (Linux 6.18 refuses this one as XDP)
        LoadOptions xdp = ctx.withPacketContext(dev.bpf4j.runtime.PacketContext.XDP_MD);
        rejected(prog(twoFrames(512, 64)), xdp, ValidatorFeatures.DEFAULT, 1, "combined stack size of 2 calls is 576");
    }
}
