package dev.bpf4j.jit;

import dev.bpf4j.unwind.ExternalTool;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Instruction boundaries and AT&T text of generated x86-64 code, from GNU objdump (an independent
 * decoder: the unwind-row tests replay rsp/rbp from it). Skips the calling test without objdump.
 */
public final class X86Listing {
    private static final Pattern LINE = Pattern.compile("^\\s*([0-9a-f]+):\\s+(?:[0-9a-f]{2} )+\\s*(.*)$");

    /** One instruction: its offset in the code and its text without objdump's comments. */
    public record Insn(int offset, String text) {}

    private X86Listing() {}

    public static List<Insn> disassemble(byte[] code) {
        Assumptions.assumeTrue(ExternalTool.available("objdump"), "GNU objdump is not installed");
        try {
            Path f = Files.createTempFile("bpf4j-x86-", ".bin");
            try {
                Files.write(f, code);
                String out = ExternalTool.run(List.of("objdump", "-D", "-b", "binary", "-m", "i386:x86-64", f.toString()));
                List<Insn> insns = new ArrayList<>();
                for (String line : out.split("\n")) {
                    Matcher m = LINE.matcher(line);
                    if (m.matches() && !m.group(2).isBlank()) insns.add(new Insn(Integer.parseInt(m.group(1), 16), m.group(2).trim().replaceAll("\\s+#.*$", "")));
                }
                return insns;
            } finally {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
