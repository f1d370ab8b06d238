package dev.bpf4j.interp;

import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.Helper;
import dev.bpf4j.runtime.HelperSpec;

/**
 * A program pre-decoded for the dispatch loop: parallel arrays indexed by pc, with one extra
 * {@link InsnCode#TRAP} slot past the end. Immutable, shared by every thread that runs it.
 */
final class DecodedProgram {
    final String name;
    /** Packed words, see {@link InsnCode}. */
    final long[] code;
    /** The 64-bit immediate of each lddw slot (0 elsewhere). */
    final long[] wide;
    /** The helper body of each {@code call helper} slot, null elsewhere. */
    final Helper[] helpers;
    final HelperSpec[] helperSpecs;
    final int entryArgs;

    DecodedProgram(String name, long[] code, long[] wide, HelperSpec[] helperSpecs, int entryArgs) {
        this.name = name;
        this.code = code;
        this.wide = wide;
        this.helperSpecs = helperSpecs;
        this.helpers = new Helper[helperSpecs.length];
        for (int i = 0; i < helperSpecs.length; i++) helpers[i] = helperSpecs[i] == null ? null : helperSpecs[i].body();
        this.entryArgs = entryArgs;
    }

    /** Number of real instruction slots. */
    int length() { return code.length - 1; }

    /** The error for executing a TRAP slot or an opcode the dispatch loop does not know. */
    BpfException illegal(int pc) {
        String why;
        if (pc == length()) why = "ran past the last instruction (missing exit?)";
        else if (InsnCode.opcode(code[pc]) == InsnCode.TRAP) why = "jumped into the second slot of an lddw";
        else why = String.format("unknown opcode 0x%02x", InsnCode.opcode(code[pc]));
        return new BpfException("program '" + name + "' pc " + pc + ": illegal instruction: " + why);
    }
}
