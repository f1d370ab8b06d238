package dev.bpf4j.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One test of the public eBPF conformance suites (Alan Jowett's bpf_conformance, uBPF's
 * {@code tests/}), parsed but not run. Sections:
 * <ul>
 *   <li>{@code -- asm}: assembly text; {@link #asm()} keeps the file's line numbers (lines before
 *       the section are blank) so assembler errors point into the {@code .data} file;</li>
 *   <li>{@code -- raw}: one 64-bit instruction word per line, in hex; when a file has both (the
 *       public suites' files do), {@code -- raw} is the program and {@code -- asm} only its listing,
 *       which is then neither assembled nor kept ({@link #asm()} is empty);</li>
 *   <li>{@code -- mem}: the memory block, hex bytes separated by whitespace;</li>
 *   <li>{@code -- result}: the expected r0, hex ({@code 0x...}) or decimal (may be negative);</li>
 *   <li>{@code -- error}: the expected error text (load, validation or run time);</li>
 *   <li>{@code -- c}, {@code -- no register offset}: ignored.</li>
 * </ul>
 * {@code #} starts a comment line. Any other section makes the test {@link #skipReason() skipped}.
 */
public record DataFile(String name, Optional<String> asm, Optional<long[]> raw, Optional<byte[]> mem,
                       OptionalLong result, Optional<String> error, Optional<String> skipReason) {

    /** True when the file uses a section this runner does not understand. */
    public boolean skipped() { return skipReason.isPresent(); }

    /** True when the test expects an error rather than a result. */
    public boolean expectsError() { return error.isPresent(); }

    /** The raw words as 8-byte little-endian slots, ready for {@code Insn.decodeAll}. */
    public Optional<byte[]> rawBytes() {
        return raw.map(words -> {
            byte[] out = new byte[words.length * 8];
            for (int i = 0; i < words.length; i++) {
                for (int b = 0; b < 8; b++) out[i * 8 + b] = (byte) (words[i] >>> (8 * b));
            }
            return out;
        });
    }

    public static DataFile parse(String name, String text) { return new DataFileParser(name).parse(text); }

    public static DataFile read(Path path) {
        try {
            return parse(path.toString(), Files.readString(path, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + ": " + e.getMessage(), e);
        }
    }

    /** Section names this parser understands (besides the ignored ones). */
    public static final List<String> SECTIONS = List.of("asm", "raw", "mem", "result", "error");
    /** Sections that carry no test data for a runtime and are ignored. */
    public static final List<String> IGNORED_SECTIONS = List.of("c", "no register offset");
}
