package dev.bpf4j.unwind;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Function symbols as binutils {@code nm} lists them: the oracle for the symbolizer. */
final class Nm {
    private Nm() {}

    record Symbol(long value, long size, char type, String name) {
        boolean contains(long vaddr) { return vaddr >= value && vaddr < value + Math.max(size, 1); }
    }

    /** Defined text symbols (T, t, W, w, i) of {@code file}; {@code dynamic} lists {@code .dynsym} (nm -D). */
    static List<Symbol> functions(Path file, boolean dynamic) {
        List<String> cmd = new ArrayList<>(List.of("nm", "--defined-only", "-S"));
        if (dynamic) cmd.add("-D");
        cmd.add(file.toString());
        List<Symbol> out = new ArrayList<>();
        for (String line : Gcc.run(cmd).split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 3) continue;
            boolean sized = f.length == 4;
            char type = f[sized ? 2 : 1].charAt(0);
            if ("TtWwi".indexOf(type) < 0) continue;
            String name = f[sized ? 3 : 2];
            int at = name.indexOf('@');
            if (at > 0) name = name.substring(0, at); // nm -D prints symbol versions: memcpy@@GLIBC_2.14
            out.add(new Symbol(Long.parseUnsignedLong(f[0], 16), sized ? Long.parseUnsignedLong(f[1], 16) : 0, type, name));
        }
        return out;
    }

    static long value(List<Symbol> syms, String name) {
        return syms.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError("nm has no " + name)).value();
    }
}
