package dev.bpf4j.jit.probe;

import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfKind;
import dev.bpf4j.elf.ElfSection;
import dev.bpf4j.elf.ElfSymbol;
import dev.bpf4j.unwind.ExternalTool;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The length decoder against binutils {@code objdump -d -w} as the oracle, instruction by
 * instruction: lengths, direct branch targets and RIP-relative targets, over the any-entry
 * libraries (gcc -O0/-O2/CET) and 512 KiB of libc's own code (SSE, AVX, EVEX string functions).
 */
class InsnDecoderTest {
    private static final Pattern LINE = Pattern.compile("^\\s*([0-9a-f]+):\\t((?:[0-9a-f]{2} )+)\\s*\\t(\\S+)\\s*(.*)$");
    private static final Pattern BRANCH = Pattern.compile("^(?:bnd |notrack )?(j\\w+|call|loop\\w*)\\s+([0-9a-f]+) <");
    private static final Pattern RIP = Pattern.compile("\\(%rip\\).*# ([0-9a-f]+)");

    @Test
    void agreesWithObjdumpOnTheTestLibraries() throws Exception {
        for (AnyEntryLib lib : AnyEntryLib.values()) {
            Path so = Path.of(lib.path());
            ElfSection text = text(so);
            int n = compare(so, text, text.offset(), text.offset() + text.size());
            assertThat(n).as(lib.name()).isGreaterThan(50);
        }
    }

    @Test
    void agreesWithObjdumpOnLibc() throws Exception {
        Path libc = Path.of("/lib/x86_64-linux-gnu/libc.so.6");
        Assumptions.assumeTrue(Files.exists(libc) && ExternalTool.available("objdump"), "no libc.so.6 or objdump");
        ElfSection text = text(libc);
        ElfFile elf = ElfFile.parse(Files.readAllBytes(libc), ElfKind.NATIVE_X86_64);
        // start at a function symbol a quarter into .text, so objdump starts on an instruction
        long from = -1, middle = text.offset() + text.size() / 4;
        for (ElfSymbol s : elf.dynamicSymbols()) {
            if (s.type() == ElfSymbol.STT_FUNC && s.value() >= middle && (from < 0 || s.value() < from)) from = s.value();
        }
        int n = compare(libc, text, from, from + 512 * 1024);
        assertThat(n).isGreaterThan(80_000);
    }

    private static ElfSection text(Path so) throws Exception {
        ElfFile elf = ElfFile.parse(Files.readAllBytes(so), ElfKind.NATIVE_X86_64);
        ElfSection text = elf.section(".text").orElseThrow();
        ElfSection check = text;
        assertThat(check.offset()).as(".text address = offset in %s (as in every shared library here)", so).isPositive();
        return text;
    }

    /** Compares every instruction objdump decodes in [from, to) (vaddr = file offset for .text); returns how many. */
    private static int compare(Path so, ElfSection text, long from, long to) throws Exception {
        Assumptions.assumeTrue(ExternalTool.available("objdump"), "objdump is not installed");
        byte[] file = Files.readAllBytes(so);
        String out = ExternalTool.run(List.of("objdump", "-d", "-w", "--start-address=0x" + Long.toHexString(from),
                "--stop-address=0x" + Long.toHexString(to), so.toString()));
        int n = 0;
        List<String> mismatches = new ArrayList<>();
        boolean bad = false;
        for (String line : out.split("\n")) {
            if (line.endsWith(">:")) bad = false;                 // a symbol: objdump is in sync again
            Matcher m = LINE.matcher(line);
            if (!m.matches()) continue;
            if (m.group(3).equals("(bad)")) bad = true;
            if (m.group(3).startsWith(".byte")) continue;         // cut by --stop-address
            if (bad) continue;                                    // objdump lost the instruction stream
            long at = Long.parseLong(m.group(1), 16);
            int length = m.group(2).trim().split(" ").length;
            byte[] window = java.util.Arrays.copyOfRange(file, (int) at, (int) Math.min(file.length, at + 16));
            InsnDecoder.Insn i = InsnDecoder.decode(window, 0);
            String insn = m.group(3) + " " + m.group(4);
            n++;
            if (i == null || i.length() != length) {
                mismatches.add(String.format("%x %s: objdump %d bytes, decoder %s", at, insn, length, i == null ? "null" : i.length()));
                continue;
            }
            Matcher b = BRANCH.matcher(insn);
            if (b.find()) {
                long target = Long.parseLong(b.group(2), 16);
                if (i.relSize() == 0 || i.target(window, at) != target) mismatches.add(String.format("%x %s: branch target %s", at, insn, i.relSize() == 0 ? "none" : Long.toHexString(i.target(window, at))));
            }
            Matcher r = RIP.matcher(insn);
            if (r.find()) {
                long target = Long.parseLong(r.group(1), 16);
                long mine = i.ripDispAt() < 0 ? -1 : at + i.length() + InsnDecoder.readInt(window, i.ripDispAt());
                if (mine != target) mismatches.add(String.format("%x %s: rip target %x", at, insn, mine));
            }
        }
        assertThat(mismatches).as("%s: %d instructions", so, n).isEmpty();
        return n;
    }
}
