package dev.bpf4j.cli.jited;

import dev.bpf4j.unwind.ExternalTool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Disassembles a raw x86-64 image with binutils: {@code objdump -D -b binary -m i386:x86-64 -M intel}
 * on a temp file (llvm-objdump 14 reads no raw binaries). The tool is {@value #PROPERTY} when set
 * (a path, or {@code none} to force the hex fallback), else {@code objdump} on the PATH.
 */
public final class ObjdumpX86 {
    public static final String PROPERTY = "bpf4j.objdump";
    /** {@code "  1f:\t48 89 e5             \tmov    rbp,rsp"}; long instructions continue on a line without text. */
    private static final Pattern LINE = Pattern.compile("^\\s*([0-9a-f]+):\\t([0-9a-f ]+?)\\s*(?:\\t(.*))?$");

    private final String tool;

    public ObjdumpX86(String tool) { this.tool = tool; }

    /** The configured objdump, when it is installed. */
    public static Optional<ObjdumpX86> find() {
        String configured = System.getProperty(PROPERTY);
        if ("none".equals(configured)) return Optional.empty();
        if (configured != null) return Files.isExecutable(Path.of(configured)) ? Optional.of(new ObjdumpX86(configured)) : Optional.empty();
        return ExternalTool.which("objdump").map(p -> new ObjdumpX86(p.toString()));
    }

    public String tool() { return tool; }

    /** Every instruction of {@code image}, offsets from its start; empty when objdump fails. */
    public Optional<List<X86Line>> disassemble(byte[] image) {
        Path tmp = null;
        try {
            tmp = Files.createTempFile("bpf4j-jited", ".bin");
            Files.write(tmp, image);
            return ExternalTool.tryRun(null, Duration.ofSeconds(30),
                            List.of(tool, "-D", "-b", "binary", "-m", "i386:x86-64", "-M", "intel", "-w", tmp.toString()))
                    .filter(ExternalTool.Result::ok).map(r -> parse(r.output()));
        } catch (IOException | UncheckedIOException | IllegalStateException e) { // IllegalStateException: interrupted
            return Optional.empty();
        } finally {
            if (tmp != null) {
                try { Files.deleteIfExists(tmp); } catch (IOException ignored) { /* a temp file left behind is harmless */ }
            }
        }
    }

    /** The instruction lines of objdump's output (headers and blank lines dropped). */
    static List<X86Line> parse(String output) {
        List<X86Line> out = new ArrayList<>();
        for (String line : output.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (!m.matches()) continue;
            String text = m.group(3) == null ? "" : m.group(3).strip().replaceAll("\\s+", " ");
            out.add(new X86Line(Integer.parseInt(m.group(1), 16), m.group(2).strip(), text));
        }
        return out;
    }
}
