package dev.bpf4j.isa;

import dev.bpf4j.unwind.ExternalTool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs the installed llvm-mc / llvm-objdump (LLVM 14) for cross-checks. */
final class Llvm {
    private Llvm() {}

    static boolean available() { return ExternalTool.onPath("llvm-mc") && ExternalTool.onPath("llvm-objdump"); }

    static String run(Path dir, String... cmd) throws IOException {
        ExternalTool.Result r = ExternalTool.exec(dir, Duration.ofSeconds(60), List.of(cmd));
        if (r.timedOut()) throw new IOException("timeout: " + String.join(" ", cmd));
        if (r.status() != 0) throw new IOException(String.join(" ", cmd) + " failed:\n" + r.output());
        return r.output();
    }

    private static final Pattern ENCODING = Pattern.compile("# encoding: \\[([^\\]]*)\\]");

    /** The encoding of each line of {@code source}, via {@code llvm-mc -show-encoding}. */
    static List<byte[]> encodings(Path dir, List<String> source) throws IOException {
        Path s = dir.resolve("enc.s");
        Files.write(s, source);
        String out = run(dir, "llvm-mc", "-arch=bpf", "-mattr=+alu32", "-show-encoding", s.toString());
        List<byte[]> result = new ArrayList<>();
        Matcher m = ENCODING.matcher(out);
        while (m.find()) {
            String[] parts = m.group(1).split(",");
            byte[] b = new byte[parts.length];
            for (int i = 0; i < parts.length; i++) b[i] = (byte) Integer.parseInt(parts[i].strip().substring(2), 16);
            result.add(b);
        }
        return result;
    }

    private static final Pattern OBJDUMP_LINE = Pattern.compile("^\\s*(\\d+):\\t(?:[0-9a-f]{2} ?)+\\t(.*)$");

    /** llvm-objdump's text per slot index for {@code code} (slots it does not print are absent/null). */
    static String[] objdump(Path dir, Insn[] code, boolean alu32) throws IOException {
        StringBuilder src = new StringBuilder(".text\n");
        byte[] bytes = Insn.encodeAll(code);
        for (int i = 0; i < bytes.length; i += 8) {
            src.append(".byte ");
            for (int k = 0; k < 8; k++) src.append(k == 0 ? "" : ",").append(bytes[i + k] & 0xff);
            src.append('\n');
        }
        Path s = dir.resolve("raw.s");
        Files.writeString(s, src);
        Path o = dir.resolve("raw.o");
        run(dir, "llvm-mc", "-arch=bpf", "-filetype=obj", s.toString(), "-o", o.toString());
        String out = alu32 ? run(dir, "llvm-objdump", "-d", "--mattr=+alu32", o.toString()) : run(dir, "llvm-objdump", "-d", o.toString());
        String[] texts = new String[code.length];
        for (String line : out.split("\n")) {
            Matcher m = OBJDUMP_LINE.matcher(line);
            if (!m.matches()) continue;
            int pc = Integer.parseInt(m.group(1));
            // Drop the "<.text+0x..>" target annotation; normalise llvm's tab after a mnemonic.
            texts[pc] = m.group(2).replaceAll(" <[^<> ]+>$", "").replace('\t', ' ').strip();
        }
        return texts;
    }
}
