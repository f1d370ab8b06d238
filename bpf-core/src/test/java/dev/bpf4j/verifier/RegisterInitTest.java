package dev.bpf4j.verifier;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.runtime.LoadOptions;
import org.junit.jupiter.api.Test;

import static dev.bpf4j.verifier.V.*;

/** Reads of registers that are not initialised on every path (the kernel's "R%d !read_ok"). */
class RegisterInitTest {
    /** r0 = *(u64 *)(r1 + 0): reads r1 without returning a pointer. */
    private static final Insn LOAD_CTX = new Insn(0x79, 0, 1, 0, 0);

    @Test
    void entryArgumentsAreSetAtEntry() {
        accepted(prog(LOAD_CTX, EXIT));
        rejected(prog(movReg(0, 2), EXIT), 0, "R2 !read_ok", "calls clobber r1-r5");
        accepted(prog(movReg(0, 2), EXIT), OPTIONS.withEntryArgs(2), ValidatorFeatures.DEFAULT);
        rejected(prog(LOAD_CTX, EXIT), OPTIONS.withEntryArgs(0), ValidatorFeatures.DEFAULT, 0, "R1 !read_ok");
    }

    @Test
    void calleeSavedRegistersStartUninitialised() {
        rejected(prog(mov(0, 0), addReg(0, 6), EXIT), 1, "R6 !read_ok");
        rejected(prog(mov(0, 0), new Insn(0x07, 7, 0, 0, 1), EXIT), 1, "R7 !read_ok"); // add reads its dst
    }

    @Test
    void movDoesNotReadItsDestination() {
        accepted(prog(mov(6, 0), movReg(7, 6), movReg(0, 7), EXIT));
    }

    @Test
    void exitReadsR0() {
        rejected(prog(EXIT), 0, "R0 !read_ok");
    }

    @Test
    void initialisedOnOnlyOneBranch() {
        // r2 (the conformance suites' length) is a scalar the verifier cannot decide the branch on
        rejected(prog(
                jeq(2, 0, 1),   // 0: -> 2
                mov(0, 1),      // 1
                EXIT), OPTIONS.withEntryArgs(2), ValidatorFeatures.DEFAULT, 2, "R0 !read_ok");
        // the same, with the initialising path reaching the exit first: the paths are checked each
        rejected(prog(
                jeq(2, 0, 1),   // 0: -> 2
                ja(1),          // 1: -> 3, r0 not set
                mov(0, 1),      // 2
                EXIT), OPTIONS.withEntryArgs(2), ValidatorFeatures.DEFAULT, 3, "R0 !read_ok");
        accepted(prog(jeq(2, 0, 2), mov(0, 1), ja(1), mov(0, 2), EXIT), OPTIONS.withEntryArgs(2), ValidatorFeatures.DEFAULT);
    }

    @Test
    void aBranchTheBoundsDecideIsFollowedOneWay() {
        // r1 (ctx) is never null, so r0 is set on the only path the program can take (Linux 6.x accepts this too)
        accepted(prog(jeq(1, 0, 1), mov(0, 1), EXIT), OPTIONS.withEntry(dev.bpf4j.runtime.EntryRegisters.CONTEXT), ValidatorFeatures.DEFAULT);
        accepted(prog(mov(3, 5), jeq(3, 5, 1), EXIT, mov(0, 1), EXIT));
        rejected(prog(mov(3, 5), jne(3, 5, 1), EXIT, mov(0, 1), EXIT), 2, "R0 !read_ok");
    }

    @Test
    void backEdgeLosesARegister() {
        rejected(prog(
                mov(0, 0),              // 0
                mov(2, 1),              // 1
                addReg(0, 2),           // 2: loop head, r2 set on entry but not on the back-edge
                callHelper(HELPER_ID),  // 3: clobbers r2
                jeq(0, 0, -3),          // 4: -> 2
                EXIT), 2, "R2 !read_ok", "calls clobber r1-r5");
        accepted(prog(mov(0, 0), mov(6, 1), addReg(0, 6), callHelper(HELPER_ID), jeq(0, 0, -3), EXIT));
    }

    @Test
    void helperCallSetsR0AndClobbersArguments() {
        accepted(prog(mov(6, 1), callHelper(HELPER_ID), addReg(0, 6), EXIT));
        rejected(prog(mov(1, 1), callHelper(HELPER_ID), movReg(0, 1), EXIT), 2, "R1 !read_ok", "calls clobber r1-r5");
        rejected(prog(mov(5, 1), callHelper(HELPER_ID), movReg(0, 5), EXIT), 2, "R5 !read_ok");
    }

    @Test
    void localCallSetsR0AndClobbersArguments() {
        accepted(prog(mov(9, 1), callLocal(2), addReg(0, 9), EXIT, mov(0, 1), EXIT));
        rejected(prog(mov(3, 1), callLocal(2), movReg(0, 3), EXIT, mov(0, 1), EXIT), 2, "R3 !read_ok");
    }

    @Test
    void subprogramStartsWithArgumentsOnly() {
        // a subprogram sees only the arguments its caller set (issue 21, reproducer 3)
        rejected(prog(callLocal(1), EXIT, movReg(0, 5), EXIT), 2, "R5 !read_ok", "a subprogram gets only the r1-r5 its caller set");
        accepted(prog(mov(5, 7), callLocal(1), EXIT, movReg(0, 5), EXIT));
        rejected(prog(callLocal(1), EXIT, movReg(0, 6), EXIT), 2, "R6 !read_ok");
    }

    @Test
    void aSubprogramMayExitWithR0UnsetWhenItsCallerDoesNotReadIt() {
        // Linux 6.18 (prepare_func_exit) hands r0 back as it is: only a read of it is refused
        accepted(prog(callLocal(2), mov(0, 0), EXIT, EXIT));
        rejected(prog(callLocal(1), EXIT, EXIT), 1, "R0 !read_ok");
        rejected(prog(callLocal(2), new Insn(0x07, 0, 0, 0, 1), EXIT, EXIT), 1, "R0 !read_ok");
        // two levels: the unset r0 passes through a subprogram that returns it unread
        accepted(prog(callLocal(2), mov(0, 0), EXIT, callLocal(1), EXIT, EXIT));
        rejected(prog(callLocal(1), EXIT, callLocal(1), EXIT, EXIT), 1, "R0 !read_ok");
    }

    @Test
    void noFramePointerIsReturnedToACaller() {
        // Linux refuses any stack pointer in r0 at a subprogram's exit, the caller's own included
        rejected(prog(movReg(1, 10), new Insn(0x07, 1, 0, 0, -8), new Insn(0x7a, 1, 0, 0, 0), callLocal(2),
                new Insn(0x79, 0, 0, 0, 0), EXIT, movReg(0, 1), EXIT), 7, "cannot return stack pointer to the caller");
    }

    @Test
    void loopsConverge() {
        // r2 is set inside the loop body only after its first read on the back-edge path
        rejected(prog(
                mov(0, 0),          // 0
                jeq(0, 5, 3),       // 1: -> 5
                addReg(0, 2),       // 2: r2 not set on the path 0,1,2
                mov(2, 1),          // 3
                ja(-4),             // 4: -> 1
                EXIT), 2, "R2 !read_ok");
        accepted(prog(
                mov(0, 0), mov(2, 1),
                new Insn(0x07, 0, 0, 0, 1),  // 2: r0 += 1
                new Insn(0x55, 0, 0, -2, 10), // 3: if r0 != 10 goto 2
                EXIT));
    }

    @Test
    void lowestOffendingPcIsReported() {
        rejected(prog(mov(0, 0), addReg(0, 7), addReg(0, 6), EXIT), 1, "R7 !read_ok");
        rejected(prog(mov(0, 0), new Insn(0x5d, 8, 9, 0, 0), EXIT), 1, "R8 !read_ok");
    }

    @Test
    void storesAndAtomicsReadTheirOperands() {
        rejected(prog(mov(0, 0), new Insn(0x7b, 10, 4, -8, 0), EXIT), 1, "R4 !read_ok");
        rejected(prog(mov(0, 0), new Insn(0x7a, 6, 0, 0, 1), EXIT), 1, "R6 !read_ok");
        rejected(prog(mov(1, 0), new Insn(0xdb, 10, 1, -8, 0xf1), EXIT), 1, "R0 !read_ok"); // cmpxchg compares r0
        rejected(prog(mov(0, 0), new Insn(0x79, 0, 3, 0, 0), EXIT), 1, "R3 !read_ok");
    }

    @Test
    void fetchingAtomicsAndLoadsInitialiseTheirTarget() {
        accepted(prog(mov(1, 0), new Insn(0x7b, 10, 1, -8, 0), new Insn(0xdb, 10, 1, -8, 0xe1), movReg(0, 1), EXIT));
        accepted(prog(mov(1, 1), mov(0, 0), new Insn(0x7b, 10, 1, -8, 0), new Insn(0xdb, 10, 1, -8, 0xf1), EXIT));
        accepted(prog(new Insn(0x79, 0, 10, -8, 0), EXIT));
        accepted(prog(lddw(0, 1), EXIT));
    }

    @Test
    void deadCodeIsNotChecked() {
        accepted(prog(mov(0, 0), EXIT, addReg(0, 8), EXIT));
    }

    @Test
    void defaultsAreKernelEntry() {
        accepted(prog(LOAD_CTX, EXIT), LoadOptions.defaults(), ValidatorFeatures.DEFAULT);
    }
}
