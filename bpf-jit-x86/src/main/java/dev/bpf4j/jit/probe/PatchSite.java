package dev.bpf4j.jit.probe;

import dev.bpf4j.jit.compiler.Switches;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * Where a probe patches a function, and what the 5 bytes there hold:
 * <ul>
 * <li>the 5-byte {@code nopl 0x0(%rax,%rax,1)} of gcc {@code -pg -mfentry -mnop-mcount} (after
 * {@code endbr64} with {@code -fcf-protection}): the trampoline returns right after it;</li>
 * <li>anything else that decodes into whole instructions ({@link DisplacedInsns}: an ordinary
 * prologue, five 1-byte nops of {@code -fpatchable-function-entry=5,0}): the trampoline ends by
 * running their relocated copy, which jumps back after them. The function's ELF symbol gives its
 * size, and no instruction of its body may jump into the displaced bytes ({@link FunctionBody}).</li>
 * </ul>
 * Attaching turns the 5 bytes into {@code call trampoline} at a nop (the trampoline's {@code ret}
 * matches it) and into {@code jmp trampoline} where instructions are displaced: the trampoline
 * pushes site + 5 itself and ends in the copy, so no {@code call} is left without its {@code ret}
 * (one such leaves the CPU's return stack buffer one entry off, and the function's and its
 * callers' returns mispredict: ≈ 10 ns a hit). Detaching puts the original bytes back.
 *
 * @param function  the function's address (what probes and pt_regs.ip name)
 * @param site      the address of the 5 patched bytes: {@code function}, or {@code function + 4} after endbr64
 * @param displaced the instructions the patch displaces, or null at a 5-byte nop
 * @param jumps     the site is patched with a {@code jmp} (displaced sites; {@code -Dbpf4j.probe.jmpEntry=false}
 *                  gives them a {@code call} too, for A/B timing and tests)
 */
record PatchSite(String name, long function, long site, DisplacedInsns displaced, boolean jumps) {

    static final byte[] NOP5 = {0x0f, 0x1f, 0x44, 0x00, 0x00};
    static final byte[] ENDBR64 = {(byte) 0xf3, 0x0f, 0x1e, (byte) 0xfa};
    static final int LENGTH = 5;
    /** The longest x86 instruction: enough bytes after the site to decode the last displaced one. */
    private static final int MAX_INSN = 15;

    /** Finds the patch site of the function at {@code function}, or explains why it has none. */
    static PatchSite inspect(String name, long function) {
        if (function == 0) throw new IllegalArgumentException("cannot probe '" + name + "': address 0");
        if (!ProbeMaps.executable(function)) {
            throw new IllegalArgumentException(String.format("cannot probe '%s': 0x%x is not in an executable mapping", name, function));
        }
        byte[] head = ProcessText.read(function, 9);
        int at = Arrays.equals(head, 0, 4, ENDBR64, 0, 4) ? 4 : 0;
        byte[] five = Arrays.copyOfRange(head, at, at + LENGTH);
        if (Arrays.equals(five, NOP5)) return new PatchSite(name, function, function + at, null, false);
        if (five[0] == (byte) 0xe8) {
            throw new IllegalArgumentException(String.format("cannot probe '%s' at 0x%x: its entry is already a call (%s): attached by another tool, or built with -pg without -mnop-mcount",
                    name, function, HexFormat.ofDelimiter(" ").formatHex(five)));
        }
        long site = function + at;
        long end = FunctionBody.end(name, function);
        if (end - site < LENGTH) {
            throw DisplacedInsns.refuse(name, site, String.format("the function is %d bytes long, shorter than the %d-byte call", end - function, at + LENGTH));
        }
        byte[] window = readUpTo(site, Math.min(end - site, LENGTH - 1 + MAX_INSN));
        DisplacedInsns displaced = DisplacedInsns.decode(name, site, window);
        if (end - function > FunctionBody.MAX_BODY) {
            throw DisplacedInsns.refuse(name, site, "its body is larger than " + FunctionBody.MAX_BODY + " bytes, too large to check for jumps into the patched bytes");
        }
        FunctionBody.checkNoJumpInto(name, function, ProcessText.read(function, (int) (end - function)), site, displaced.length());
        return new PatchSite(name, function, site, displaced, Switches.on("bpf4j.probe.jmpEntry"));
    }

    private static byte[] readUpTo(long at, long n) { return ProcessText.read(at, (int) n); }

    /** The bytes the site holds while nothing is attached. */
    byte[] original() { return displaced == null ? NOP5.clone() : Arrays.copyOf(displaced.original(), LENGTH); }

    /** {@code call rel32} or {@code jmp rel32} ({@link #jumps()}) from the site to {@code target}. */
    byte[] patchTo(long target) {
        long rel = target - (site + LENGTH);
        if (rel != (int) rel) throw new IllegalStateException(String.format("trampoline 0x%x is out of rel32 reach of 0x%x", target, site));
        int r = (int) rel;
        return new byte[]{(byte) (jumps ? 0xe9 : 0xe8), (byte) r, (byte) (r >> 8), (byte) (r >> 16), (byte) (r >> 24)};
    }

    /** The bytes the site holds now. */
    byte[] current() { return ProcessText.read(site, LENGTH); }
}
