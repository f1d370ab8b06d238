package dev.bpf4j.cli;

import dev.bpf4j.jit.runtime.JitLoader;
import dev.bpf4j.cli.conformance.ConformanceHelpers;
import dev.bpf4j.cli.jited.ObjdumpX86;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.jit.compiler.CompiledProgram;
import dev.bpf4j.program.Program;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bpf4j disasm --jited}: with objdump the instructions, without it hex; every byte of the image, under its symbol and pc. */
class DisasmJitedTest {
    private static final String ASM = """
            mov %r6, 3
            call local f
            add %r0, %r6
            exit
            f:
            ldxw %r0, [%r1+4]
            exit
            """;
    private static final Pattern CODE = Pattern.compile("^\\s*([0-9a-f]+):\\t([0-9a-f ]+?)\\s*(?:\\t(.*))?$");

    @AfterEach void clearTool() { System.clearProperty(ObjdumpX86.PROPERTY); }

    private static Path dataFile(Path dir) throws Exception {
        Path f = dir.resolve("twofn.data");
        Files.writeString(f, "-- asm\n" + ASM + "-- mem\n00 00 00 00 07 00 00 00\n-- result\n0xa\n");
        return f;
    }

    private static byte[] expectedImage() {
        Program p = Assembler.assembleProgram("twofn", ASM);
        CompiledProgram c = new JitLoader().compile(p, ConformanceHelpers.loadOptions());
        return c.code();
    }

    @Test void withObjdumpEachFunctionIsHeadedBySymbolAndItsPcsAreFollowedByX86Instructions(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(ObjdumpX86.find().isPresent(), "objdump (binutils) is not installed");
        CliRunner r = CliRunner.run("disasm", "--jited", dataFile(dir).toString());
        assertThat(r.status()).as(r.err()).isZero();
        String out = r.out();
        assertThat(out).containsPattern("(?m)^bpf_prog_[0-9a-f]{16}_twofn:\n\\s+0:\t55\\s+\tpush rbp\n\\s+1:\t48 89 e5\\s+\tmov rbp,rsp$");
        assertThat(out).containsPattern("(?m)^bpf_prog_[0-9a-f]{16}_F:$");
        assertThat(out).containsPattern("(?m)^bpf_prog_[0-9a-f]{16}_twofn__stubs:$");
        assertThat(out).contains("; pc 0: r6 = 0x3\n").contains("; pc 4: r0 = *(u32 *)(r1 + 4)\n").contains("; pc 3: exit\n");
        // pc 0 becomes a 32-bit move into rbx (R6).
        assertThat(out).containsPattern("; pc 0: r6 = 0x3\n\\s+[0-9a-f]+:\t[0-9a-f ]+\t(mov ebx,0x3|mov rbx,0x3)\n");
        assertThat(out).containsPattern("(?m)\tret$");
        assertThat(codeBytes(out)).isEqualTo(expectedImage());
        assertThat(codeLines(out)).allSatisfy(m -> assertThat(m.group(3)).as("instruction text").isNotBlank());
    }

    @Test void withoutObjdumpTheBytesArePrintedInHexUnderTheSameHeadersAndPcs(@TempDir Path dir) throws Exception {
        System.setProperty(ObjdumpX86.PROPERTY, "none");
        CliRunner r = CliRunner.run("disasm", "--jited", dataFile(dir).toString());
        assertThat(r.status()).as(r.err()).isZero();
        String out = r.out();
        assertThat(out).containsPattern("(?m)^bpf_prog_[0-9a-f]{16}_twofn:\n\\s+0:\t55 48 89 e5");
        assertThat(out).containsPattern("(?m)^bpf_prog_[0-9a-f]{16}_F:\n");
        assertThat(out).contains("; pc 0: r6 = 0x3\n").contains("; pc 4: r0 = *(u32 *)(r1 + 4)\n");
        assertThat(codeBytes(out)).isEqualTo(expectedImage());
        assertThat(codeLines(out)).allSatisfy(m -> {
            assertThat(m.group(3)).isNull();
            assertThat(m.group(2).split(" ")).hasSizeLessThanOrEqualTo(16);
        });
    }

    @Test void aMissingObjdumpFallsBackToHex(@TempDir Path dir) throws Exception {
        System.setProperty(ObjdumpX86.PROPERTY, dir.resolve("no-such-objdump").toString());
        CliRunner r = CliRunner.run("disasm", "--jited", dataFile(dir).toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(codeBytes(r.out())).isEqualTo(expectedImage());
        assertThat(codeLines(r.out())).allSatisfy(m -> assertThat(m.group(3)).isNull());
    }

    @Test void rawBytecodeWorksToo(@TempDir Path dir) throws Exception {
        Path bin = dir.resolve("twofn.bin");
        Files.write(bin, Assembler.assembleBytes(ASM));
        System.setProperty(ObjdumpX86.PROPERTY, "none");
        CliRunner r = CliRunner.run("disasm", "--jited", bin.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(codeBytes(r.out())).isEqualTo(expectedImage());
    }

    @Test void programsCallingHelpersBeyondTheConformanceOnesAreListedToo(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("helpers.data");
        Files.writeString(f, "-- asm\ncall 1\ncall 1\ncall 14\nexit\n-- result\n0x0\n");
        System.setProperty(ObjdumpX86.PROPERTY, "none");
        CliRunner r = CliRunner.run("disasm", "--jited", f.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("; pc 0: call 1\n").contains("; pc 2: call 14\n");
    }

    /** end = data + len; if data + 14 > end goto out; r0 = data[13]: RegionProof gives main a guarded copy. */
    private static final String GUARDED = """
            mov %r4, %r1
            add %r4, %r2
            mov %r3, %r1
            add %r3, 14
            jgt %r3, %r4, +2
            ldxb %r0, [%r1+13]
            exit
            mov %r0, 7
            exit
            """;

    @Test void mainsGuardedCopyIsListedUnderItsOwnHeaderWithItsPcs(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("guarded.data");
        Files.writeString(f, "-- asm\n" + GUARDED + "-- mem\n" + "00 ".repeat(16).trim() + "\n-- result\n0x0\n");
        CompiledProgram c = new JitLoader().compile(Assembler.assembleProgram("guarded", GUARDED), ConformanceHelpers.loadOptions());
        assertThat(c.proofs().guardedOffset()).as("the program has a guarded copy").isPositive();
        System.setProperty(ObjdumpX86.PROPERTY, "none");
        CliRunner r = CliRunner.run("disasm", "--jited", f.toString());
        assertThat(r.status()).as(r.err()).isZero();
        String out = r.out();
        String header = "; guarded copy: entered when the entry guard passes; proven accesses run unchecked\n";
        assertThat(out).containsOnlyOnce(header);
        String body = out.substring(0, out.indexOf(header)), copy = out.substring(out.indexOf(header));
        for (String pc : List.of("; pc 0: ", "; pc 5: r0 = *(u8 *)(r1 + 13)\n", "; pc 8: exit\n")) {
            assertThat(body).contains(pc);
            assertThat(copy).contains(pc);
        }
        // the copy's pc 0 comes right after the header, at the offset the compiler placed it
        assertThat(copy).startsWith(header + "; pc 0: ")
                .containsPattern("^" + java.util.regex.Pattern.quote(header) + "; pc 0: [^\n]*\n\\s*" + Integer.toHexString(c.proofs().guardedOffset()) + ":\t");
        assertThat(codeBytes(out)).isEqualTo(c.code());
    }

    @Test void jitedTakesNoValue(@TempDir Path dir) throws Exception {
        CliRunner r = CliRunner.run("disasm", "--jited=yes", dataFile(dir).toString());
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("option '--jited' takes no value");
    }

    private static List<Matcher> codeLines(String listing) {
        List<Matcher> out = new ArrayList<>();
        for (String line : listing.split("\n")) {
            Matcher m = CODE.matcher(line);
            if (m.matches()) out.add(m);
        }
        return out;
    }

    /** The listed bytes in order, checking that each line starts where the previous one ended. */
    private static byte[] codeBytes(String listing) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (Matcher m : codeLines(listing)) {
            assertThat(Integer.parseInt(m.group(1), 16)).as("offset of %s", m.group()).isEqualTo(bytes.size());
            bytes.writeBytes(HexFormat.of().parseHex(m.group(2).replace(" ", "")));
        }
        return bytes.toByteArray();
    }
}
