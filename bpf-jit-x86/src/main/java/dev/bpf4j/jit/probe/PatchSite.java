package dev.bpf4j.jit.probe;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * Where a probe patches a function: the 5-byte {@code nopl 0x0(%rax,%rax,1)} that gcc
 * {@code -pg -mfentry -mnop-mcount} puts at the entry (after {@code endbr64} with
 * {@code -fcf-protection}). Attaching turns it into {@code call trampoline}; detaching puts the
 * nop back. Five 1-byte nops ({@code -fpatchable-function-entry=5,0}) are refused: another thread
 * may be stopped between two of them, and would resume in the middle of the call.
 *
 * @param function the function's address (what probes and pt_regs.ip name)
 * @param site     the address of the 5 patched bytes: {@code function} or {@code function + 4}
 */
record PatchSite(String name, long function, long site) {
    static final byte[] NOP5 = {0x0f, 0x1f, 0x44, 0x00, 0x00};
    static final byte[] ENDBR64 = {(byte) 0xf3, 0x0f, 0x1e, (byte) 0xfa};
    static final byte NOP1 = (byte) 0x90;
    static final int LENGTH = 5;

    /** Finds the patch site of the function at {@code function}, or explains why it has none. */
    static PatchSite inspect(String name, long function) {
        if (function == 0) throw new IllegalArgumentException("cannot probe '" + name + "': address 0");
        if (!ProbeMaps.executable(function)) {
            throw new IllegalArgumentException(String.format("cannot probe '%s': 0x%x is not in an executable mapping", name, function));
        }
        byte[] head = ProcessText.read(function, 9);
        int at = Arrays.equals(head, 0, 4, ENDBR64, 0, 4) ? 4 : 0;
        byte[] five = Arrays.copyOfRange(head, at, at + LENGTH);
        if (Arrays.equals(five, NOP5)) return new PatchSite(name, function, function + at);
        if (five[0] == (byte) 0xe8) {
            throw new IllegalArgumentException(String.format("cannot probe '%s' at 0x%x: its entry is already a call (%s): attached by another tool, or built with -pg without -mnop-mcount",
                    name, function, HexFormat.ofDelimiter(" ").formatHex(five)));
        }
        boolean singleNops = true;
        for (byte b : five) singleNops &= b == NOP1;
        if (singleNops) {
            throw new IllegalArgumentException(String.format("cannot probe '%s' at 0x%x: five 1-byte nops (-fpatchable-function-entry=5,0) are not safe to patch while"
                    + " another thread may run between them; build with gcc -pg -mfentry -mnop-mcount (one 5-byte nop)", name, function));
        }
        throw new IllegalArgumentException(String.format("cannot probe '%s' at 0x%x: no patchable entry (expected the 5-byte nop 0f 1f 44 00 00%s, found %s);"
                + " build with gcc -pg -mfentry -mnop-mcount", name, function, at == 4 ? " after endbr64" : "", HexFormat.ofDelimiter(" ").formatHex(five)));
    }

    /** {@code call rel32} from the site to {@code target}. */
    byte[] callTo(long target) {
        long rel = target - (site + LENGTH);
        if (rel != (int) rel) throw new IllegalStateException(String.format("trampoline 0x%x is out of rel32 reach of 0x%x", target, site));
        int r = (int) rel;
        return new byte[]{(byte) 0xe8, (byte) r, (byte) (r >> 8), (byte) (r >> 16), (byte) (r >> 24)};
    }

    /** The bytes the site holds now. */
    byte[] current() { return ProcessText.read(site, LENGTH); }
}
