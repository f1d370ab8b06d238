package dev.bpf4j.fuzz;

import dev.bpf4j.asm.AsmPrinter;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.conformance.DataFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A minimised mismatch as a conformance {@code .data} file: {@code #} comments with where it came
 * from, the difference and every engine's outcome; the program as {@code -- asm} (or {@code -- raw}
 * where the assembler's syntax cannot say it); the memory block; and the reference engine's answer as
 * the expectation ({@code -- result}, or {@code -- error} with its category), so that the file fails
 * on the engine that disagrees until it is fixed. Named {@code fuzz-<first 12 hex digits of the
 * SHA-256 of the program and block>.data}.
 */
public final class Reproducer {
    private Reproducer() {}

    /**
     * The section that makes a case an object ({@link ObjectShape#describe()}: its maps and tail target);
     * {@code -- mem} is then its packet. The conformance runner skips files with it; {@link #read} runs them.
     */
    public static final String OBJECT_SECTION = "fuzz-object";

    /** A reproducer (or any {@code .data} file) as a case: program, memory block, and the object when it has a {@code -- fuzz-object} section. */
    public static FuzzCase read(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            DataFile d = DataFile.parse(file.toString(), text);
            List<Insn> insns = d.asm().isPresent() ? Assembler.assemble(d.asm().get()) : List.of(Insn.decodeAll(d.rawBytes().orElseThrow()));
            String marker = "-- " + OBJECT_SECTION + "\n";
            int at = text.indexOf(marker);
            ObjectShape shape = null;
            if (at >= 0) {
                String rest = text.substring(at + marker.length());
                int end = rest.indexOf("\n-- ");
                shape = ObjectShape.parse(end < 0 ? rest : rest.substring(0, end));
            }
            return new FuzzCase(file.getFileName().toString(), insns, d.mem().orElse(null), shape);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    public static String text(DifferentialReport r, String originalOrigin, int originalLength) {
        return text(r, r.mismatchClass() + " mismatch", originalOrigin, originalLength);
    }

    /** As above, with {@code title} saying what the file shows (a mismatch class, or Linux's extra refusal). */
    public static String text(DifferentialReport r, String title, String originalOrigin, int originalLength) {
        FuzzCase c = r.fuzzCase();
        StringBuilder sb = new StringBuilder();
        sb.append("# bpf4j fuzz: ").append(title).append(", minimised to ").append(c.length())
                .append(" of ").append(originalLength).append(" slots from ").append(originalOrigin).append('\n');
        for (Difference d : r.differences()) sb.append("# ").append(d).append('\n');
        for (EngineOutcome o : r.outcomes()) {
            sb.append("# ").append(o.engine()).append(": ").append(o.first().observable()).append('\n');
            if (!o.stable()) sb.append("# ").append(o.engine()).append(" (second run): ").append(o.second().observable()).append('\n');
        }
        List<Insn> insns = c.insns();
        String asm = AsmPrinter.print(insns);
        if (roundTrips(asm, insns)) {
            sb.append("-- asm\n").append(asm);
        } else {
            sb.append("-- raw\n");
            for (Insn i : insns) sb.append(String.format("0x%016x%n", i.toRaw()));
        }
        byte[] mem = c.mem();
        if (mem != null) sb.append("-- mem\n").append(HexFormat.ofDelimiter(" ").formatHex(mem)).append('\n');
        if (c.isObject()) sb.append("-- ").append(OBJECT_SECTION).append('\n').append(c.object().describe());
        Observation ref = r.outcomes().get(0).first();
        switch (ref.verdict()) {
            case RETURNED -> sb.append(String.format("-- result%n0x%x%n", ref.r0()));
            case FAILED -> sb.append("-- error\n").append(ref.kind() == null ? "" : ref.kind().name().toLowerCase().replace('_', ' ')).append('\n');
            default -> sb.append("-- error\nrejected\n");
        }
        return sb.toString();
    }

    /** The file name: a hash of the program and the memory block. */
    public static String fileName(FuzzCase c) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (Insn i : c.insns()) {
                byte[] b = new byte[Insn.SIZE];
                i.encode(b, 0);
                md.update(b);
            }
            byte[] mem = c.mem();
            if (mem != null) {
                md.update((byte) 1);
                md.update(mem);
            }
            return "fuzz-" + HexFormat.of().formatHex(md.digest()).substring(0, 12) + ".data";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes the file into {@code dir} (created if needed); returns its path. */
    public static Path write(Path dir, DifferentialReport r, String originalOrigin, int originalLength) {
        return write(dir, r, r.mismatchClass() + " mismatch", originalOrigin, originalLength);
    }

    /** As above, with {@code title} in the first comment line. */
    public static Path write(Path dir, DifferentialReport r, String title, String originalOrigin, int originalLength) {
        try {
            Files.createDirectories(dir);
            Path f = dir.resolve(fileName(r.fuzzCase()));
            Files.writeString(f, text(r, title, originalOrigin, originalLength), StandardCharsets.UTF_8);
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the reproducer into " + dir + ": " + e.getMessage(), e);
        }
    }

    private static boolean roundTrips(String asm, List<Insn> insns) {
        try {
            return Assembler.assemble(asm).equals(insns);
        } catch (RuntimeException e) {
            return false;
        }
    }
}
