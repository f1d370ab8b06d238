package dev.bpf4j.unwind.cfi;

import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfKind;
import dev.bpf4j.unwind.ExternalTool;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * libc's whole {@code .eh_frame} against binutils: every row {@code readelf -wF} prints (CFA, rbp,
 * return address at its location) must be the row {@link ModuleCfi#rowFor} gives for that pc, both
 * through {@code .eh_frame_hdr}'s table and through a scan of {@code .eh_frame} alone.
 */
class CfiReadelfTest {
    static Path libc() {
        for (String p : new String[] {"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6"}) {
            if (Files.exists(Path.of(p))) return Path.of(p);
        }
        throw new AssertionError("no libc.so.6");
    }

    /** A row readelf printed: pc, CFA text and the rbp and ra columns ("u" when absent). */
    record Printed(long fdeOffset, long pc, String cfa, String rbp, String ra) {}

    private static final Pattern FDE = Pattern.compile("^([0-9a-f]{8}) [0-9a-f]+ [0-9a-f]+ FDE cie=([0-9a-f]+) pc=([0-9a-f]+)\\.\\.([0-9a-f]+)");

    static List<Printed> readelf(Path file) {
        // readelf exits 1 when the file has no .debug_frame; its .eh_frame dump is complete all the same.
        String out = ExternalTool.exec(null, java.time.Duration.ofSeconds(60), List.of("readelf", "-wF", file.toString())).output();
        assertThat(out).contains("Contents of the .eh_frame section");
        List<Printed> rows = new ArrayList<>();
        long fde = -1;
        List<String> columns = List.of();
        for (String line : out.split("\n")) {
            Matcher m = FDE.matcher(line);
            if (m.find()) { fde = Long.parseLong(m.group(1), 16); columns = List.of(); continue; }
            if (line.contains(" CIE ")) { fde = -1; continue; }
            String t = line.trim();
            if (t.startsWith("LOC")) { columns = List.of(t.split("\\s+")); continue; }
            if (fde < 0 || columns.isEmpty() || t.isEmpty() || !t.matches("[0-9a-f]{16} .*")) continue;
            String[] f = t.replaceAll("r(\\d+) \\(\\w+\\)", "r$1").split("\\s+");
            int rbp = columns.indexOf("rbp"), ra = columns.indexOf("ra");
            rows.add(new Printed(fde, Long.parseUnsignedLong(f[0], 16), f[1], rbp < 0 ? "u" : f[rbp], ra < 0 ? "u" : f[ra]));
        }
        return rows;
    }

    static String cfaText(CfaDefinition c) {
        if (c.kind() != CfaDefinition.Kind.REGISTER_OFFSET) return "exp";
        String[] names = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"};
        String reg = c.register() < names.length ? names[c.register()] : "r" + c.register();
        return reg + (c.offset() < 0 ? "" : "+") + c.offset();
    }

    static String ruleText(RegisterRule r) {
        return switch (r.kind()) {
            case SAME_VALUE, UNDEFINED -> "u";   // readelf: "u" for unset and for undefined, "s" for an explicit same_value
            case OFFSET -> "c" + (r.value() < 0 ? "" : "+") + r.value();
            case VAL_OFFSET -> "v" + (r.value() < 0 ? "" : "+") + r.value();
            case REGISTER -> "r" + r.value();
            case EXPRESSION -> "exp";
        };
    }

    @Test
    void everyRowReadelfPrintsForLibcIsOurs() throws IOException {
        Assumptions.assumeTrue(ExternalTool.available("readelf"), "readelf is not installed");
        Path libc = libc();
        ElfFile elf = ElfFile.parse(Files.readAllBytes(libc), ElfKind.NATIVE_X86_64);
        long t0 = System.nanoTime();
        ModuleCfi cfi = ModuleCfi.of("libc.so.6", elf);
        List<Fde> all = cfi.ehFrame().fdes();
        int rowCount = 0;
        for (Fde f : all) rowCount += CfaInterpreter.rows(cfi.ehFrame(), f).size();
        long parseNanos = System.nanoTime() - t0;
        System.out.printf("libc.so.6: %d FDEs, %d rows decoded in %.1f ms (first pass, cold)%n", all.size(), rowCount, parseNanos / 1e6);

        List<Printed> printed = readelf(libc);
        assertThat(printed).hasSizeGreaterThan(10_000);
        assertThat(cfi.hasSearchTable()).isTrue();
        byte[] eh = elf.data(elf.section(".eh_frame").orElseThrow());
        ModuleCfi scanned = ModuleCfi.of("libc.so.6", eh, elf.section(".eh_frame").orElseThrow().addr(), null, 0);
        for (Printed p : printed) {
            for (ModuleCfi m : List.of(cfi, scanned)) {
                CfiRow row = m.rowFor(p.pc()).orElseThrow(() -> new AssertionError("no row for " + p));
                String what = p + " vs " + row;
                assertThat(m.fdeFor(p.pc()).orElseThrow().offset()).as(what).isEqualTo(p.fdeOffset());
                assertThat(cfaText(row.cfa())).as(what).isEqualTo(p.cfa());
                assertThat(ruleText(row.rbp())).as(what).isEqualTo(p.rbp().equals("s") ? "u" : p.rbp());
                assertThat(ruleText(row.returnAddress())).as(what).isEqualTo(p.ra());
            }
        }
        // Both lookups find the same FDE for every FDE start.
        for (Fde f : all) {
            assertThat(cfi.fdeFor(f.pcBegin())).as("FDE at 0x%x", f.offset()).contains(f);
            assertThat(scanned.fdeFor(f.pcBegin())).contains(f);
        }
    }
}
