package dev.bpf4j.verifier;

import dev.bpf4j.runtime.LoadOptions;

import dev.bpf4j.isa.Insn;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.verifier.V.*;

/**
 * r10-relative constant-offset accesses must lie in [-512, 0) and be aligned to their size, on every
 * path explored (Linux's check_stack_access_within_bounds); on a path no run takes they are not checked.
 */
class StackAccessTest {
    @Test
    void acceptsTheFrameEdges() {
        accepted(prog(mov(1, 0),
                new Insn(0x7b, 10, 1, -512, 0), new Insn(0x73, 10, 1, -1, 0), new Insn(0x6a, 10, 0, -2, 7),
                new Insn(0x61, 0, 10, -4, 0), new Insn(0x91, 0, 10, -511, 0), new Insn(0xc3, 10, 1, -4, 0x40), EXIT));
    }

    @Test
    void belowTheFrame() {
        rejected(prog(new Insn(0x79, 0, 10, -520, 0), EXIT), 0, "invalid stack off=-520 size=8", "[fp-512, fp)");
        rejected(prog(new Insn(0x72, 10, 0, -513, 0), mov(0, 0), EXIT), 0, "invalid stack off=-513 size=1");
    }

    @Test
    void atOrAboveTheFramePointer() {
        rejected(prog(mov(0, 0), new Insn(0x73, 10, 0, 0, 0), EXIT), 1, "invalid stack off=0 size=1");
        rejected(prog(mov(0, 0), new Insn(0x63, 10, 0, 8, 0), EXIT), 1, "invalid stack off=8 size=4");
    }

    @Test
    void crossingTheTop() {
        rejected(prog(mov(0, 0), new Insn(0xdb, 10, 0, -4, 0x00), EXIT), 1, "invalid stack off=-4 size=8");
    }

    @Test
    void misaligned() {
        rejected(prog(new Insn(0x79, 0, 10, -12, 0), EXIT), 0, "misaligned stack access off -12 size 8");
        rejected(prog(mov(0, 0), new Insn(0x6a, 10, 0, -3, 0), EXIT), 1, "misaligned stack access off -3 size 2");
        rejected(prog(new Insn(0x81, 0, 10, -6, 0), EXIT), 0, "misaligned stack access off -6 size 4"); // ldxsw
    }

    @Test
    void aPathNoRunTakesIsNotChecked() {
        // Linux explores only feasible paths: r0 is 0, so the load at fp-513 never runs (a fuzz case only bpf4j refused)
        accepted(prog(mov(0, 0), jeq(0, 0, 1), new Insn(0x79, 0, 10, -513, 0), EXIT));
        accepted(prog(mov(0, 0), jne(0, 0, 1), EXIT, new Insn(0x7a, 10, 0, 8, 1), EXIT));
        // the same access on a path that may run is refused
        rejected(prog(new Insn(0x61, 2, 1, 0, 0), mov(0, 0), jeq(2, 0, 1), new Insn(0x79, 0, 10, -513, 0), EXIT),
                OPTIONS.withEntry(dev.bpf4j.runtime.EntryRegisters.CONTEXT), ValidatorFeatures.DEFAULT, 3, "invalid stack off=-513 size=8");
    }

    @Test
    void theConformanceMemoryBlockIsCheckedAtRunTime() {
        // r1 (the suites' memory block) may be any size: the engines check it against the region table when it runs
        LoadOptions block = OPTIONS.withEntry(dev.bpf4j.runtime.EntryRegisters.MEMORY_BLOCK);
        accepted(prog(new Insn(0x79, 0, 1, 4096, 0), new Insn(0x7b, 1, 0, 3, 0), EXIT), block, ValidatorFeatures.DEFAULT);
        // no byte of the block lies before it: what a read there meets (an engine's frame?) would differ per engine
        rejected(prog(new Insn(0x79, 0, 1, -3, 0), EXIT), block, ValidatorFeatures.DEFAULT, 0,
                "R1 min value is outside of the allowed memory range (offset -3 before the memory block)");
    }

    @Test
    void aKernelContextNeedsOffsetsInsideIt() {
        LoadOptions kernel = OPTIONS.withEntry(dev.bpf4j.runtime.EntryRegisters.CONTEXT);
        rejected(prog(new Insn(0x79, 0, 1, 4096, 0), EXIT), kernel, ValidatorFeatures.DEFAULT, 0, "invalid bpf_context access off=4096 size=8");
        rejected(prog(mov(0, 0), new Insn(0x7b, 1, 0, -3, 0), EXIT), kernel, ValidatorFeatures.DEFAULT, 1, "invalid bpf_context access off=-3 size=8");
        // as plain values (a raw program's arguments), the same accesses are left to the run-time checks
        accepted(prog(new Insn(0x79, 0, 1, 4096, 0), EXIT));
    }
}
