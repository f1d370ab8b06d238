package dev.bpf4j.unwind;

import com.kenai.jffi.Library;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code cfichain.c} (test resources, with the build.sh that makes the same libraries) built by gcc
 * at -O2 without or with frame pointers and opened with dlopen. Return addresses are known from
 * {@code objdump -d}: the instruction after each function's call.
 */
final class CfiChainLibrary {
    static final List<String> NO_FP = List.of("-O2", "-fomit-frame-pointer", "-fPIC", "-shared", "-pthread");
    static final List<String> FP = List.of("-O2", "-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer", "-fPIC", "-shared", "-pthread");
    private static final Map<String, CfiChainLibrary> BUILT = new HashMap<>();

    final Path path;
    private final Library opened;

    private CfiChainLibrary(Path path) {
        this.path = path;
        this.opened = Library.openLibrary(path.toString(), Library.NOW | Library.LOCAL);
        if (opened == null) throw new IllegalStateException("dlopen " + path + ": " + Library.getLastError());
    }

    static synchronized CfiChainLibrary get(boolean framePointers) {
        return BUILT.computeIfAbsent(framePointers ? "fp" : "nofp", k -> new CfiChainLibrary(
                Gcc.sharedLibrary("cfichain" + k, source(), framePointers ? FP : NO_FP)));
    }

    static String source() {
        try (InputStream in = CfiChainLibrary.class.getResourceAsStream("/dev/bpf4j/unwind/cfi/cfichain.c")) {
            if (in == null) throw new IllegalStateException("cfichain.c is not on the test class path");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String name() { return path.getFileName().toString(); }

    /** The address of {@code name}: dlsym, or for a static function its nm offset from the exported {@code a}. */
    long symbol(String name) {
        long addr = opened.getSymbolAddress(name);
        if (addr != 0) return addr;
        long a = opened.getSymbolAddress("a");
        return a - nmOffset("a") + nmOffset(name);
    }

    private long nmOffset(String name) {
        for (String line : ExternalTool.run(List.of("nm", path.toString())).split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[2].equals(name) && "tT".contains(f[1])) return Long.parseLong(f[0], 16);
        }
        throw new IllegalStateException("nm: no function " + name + " in " + path);
    }

    private static final Pattern INSN = Pattern.compile("^\\s*([0-9a-f]+):\\s+(\\S+)");

    /** Offsets from {@code function}'s start of the instruction after each call in it (objdump -d). */
    List<Long> returnOffsets(String function) {
        String out = ExternalTool.run(List.of("objdump", "-d", "--no-show-raw-insn", path.toString()));
        List<Long> offsets = new java.util.ArrayList<>();
        long start = -1;
        boolean inside = false, afterCall = false;
        for (String line : out.split("\n")) {
            if (line.matches("^[0-9a-f]+ <.*>:$")) {
                inside = line.endsWith("<" + function + ">:");
                if (inside) start = Long.parseLong(line.substring(0, line.indexOf(' ')), 16);
                continue;
            }
            Matcher m = INSN.matcher(line);
            if (!inside || !m.find()) continue;
            long at = Long.parseLong(m.group(1), 16);
            if (afterCall) offsets.add(at - start);
            afterCall = m.group(2).startsWith("call");
        }
        if (offsets.isEmpty()) throw new IllegalStateException("no call in " + function + " of " + path);
        return offsets;
    }
}
