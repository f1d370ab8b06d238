package dev.bpf4j.object;

import dev.bpf4j.elf.ElfBuilder;
import dev.bpf4j.elf.ElfRelocation;
import dev.bpf4j.elf.ElfSection;
import dev.bpf4j.elf.ElfSymbol;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.runtime.BpfLoadException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Inputs built to make a naive parser quadratic or recursive: it must stay fast and bounded. */
class HostileObjectTest {
    private static final int CALL = Opcodes.JMP | Opcodes.CALL;

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void longChainOfSubprogramsLinksWithoutRecursion() {
        int n = 30_000;
        // .text: function i = { call +1 (next function); exit }, the last one { r0 = 0; exit }.
        ByteBuffer text = ElfBuilder.buffer(n * 16);
        for (int i = 0; i < n; i++) {
            Insn first = i < n - 1 ? new Insn(CALL, 0, Opcodes.PSEUDO_CALL, 0, 1) : new Insn(0xb7, 0, 0, 0, 0);
            byte[] raw = new byte[16];
            first.encode(raw, 0);
            new Insn(0x95, 0, 0, 0, 0).encode(raw, 8);
            text.put(raw);
        }
        byte[] prog = new byte[16];
        new Insn(CALL, 0, Opcodes.PSEUDO_CALL, 0, -1).encode(prog, 0);
        new Insn(0x95, 0, 0, 0, 0).encode(prog, 8);

        ByteArrayOutputStream strtab = new ByteArrayOutputStream();
        strtab.write(0);
        ByteBuffer syms = ElfBuilder.buffer((n + 2) * 24);
        ElfBuilder.symbol(syms, 0, 0, 0, 0, 0, 0);
        for (int i = 0; i < n; i++) {
            int off = strtab.size();
            strtab.writeBytes(("f" + i + "\0").getBytes(StandardCharsets.UTF_8));
            ElfBuilder.symbol(syms, off, ElfSymbol.STB_GLOBAL, ElfSymbol.STT_FUNC, 2, i * 16L, 16);
        }
        int mainName = strtab.size();
        strtab.writeBytes("entry\0".getBytes(StandardCharsets.UTF_8));
        ElfBuilder.symbol(syms, mainName, ElfSymbol.STB_GLOBAL, ElfSymbol.STT_FUNC, 3, 0, 16);
        ByteBuffer rel = ElfBuilder.buffer(16);
        ElfBuilder.rel(rel, 0, 1, ElfRelocation.R_BPF_64_32); // call f0

        ElfBuilder b = new ElfBuilder();
        int strIdx = b.section(".strtab", ElfSection.SHT_STRTAB, 0, strtab.toByteArray(), 0, 0, 0);
        b.code(".text", text.array());
        int xdp = b.code("xdp", prog);
        int symIdx = b.section(".symtab", ElfSection.SHT_SYMTAB, 0, syms.array(), strIdx, 1, 24);
        b.section(".relxdp", ElfSection.SHT_REL, 0, rel.array(), symIdx, xdp, 16);

        ProgramSpec entry = BpfObjectSpec.parse(b.build(), "chain.o").program("entry");
        assertThat(entry.length()).isEqualTo(2 + 2 * n);
        assertThat(entry.functions()).hasSize(n + 1);
        for (int pc : new int[] {0, 2, 4, 2 * n - 2}) {
            Insn call = entry.program().insn(pc);
            assertThat(call.opcode()).isEqualTo(CALL);
            assertThat(pc + 1 + call.imm()).isEqualTo(pc + 2);
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void manyNamesIntoOneUnterminatedRunAreRefused() {
        int len = 200_000, count = 50_000;
        byte[] strtab = new byte[len + 2];
        java.util.Arrays.fill(strtab, 1, len + 1, (byte) 'A');
        ByteBuffer syms = ElfBuilder.buffer((count + 1) * 24);
        ElfBuilder.symbol(syms, 0, 0, 0, 0, 0, 0);
        for (int i = 1; i <= count; i++) ElfBuilder.symbol(syms, i, ElfSymbol.STB_GLOBAL, ElfSymbol.STT_OBJECT, 0, 0, 0);
        ElfBuilder b = new ElfBuilder();
        int str = b.section(".strtab", ElfSection.SHT_STRTAB, 0, strtab, 0, 0, 0);
        b.section(".symtab", ElfSection.SHT_SYMTAB, 0, syms.array(), str, 1, 24);
        assertThatThrownBy(() -> BpfObjectSpec.parse(b.build(), "hostile.o")).isInstanceOf(BpfLoadException.class)
                .hasMessageContaining("load symbols").hasMessageContaining("refusing a malformed string table");
    }

    @Test
    void builderOutputIsAValidObject() {
        ElfBuilder b = new ElfBuilder();
        byte[] prog = new byte[16];
        new Insn(0xb7, 0, 0, 0, 2).encode(prog, 0);
        new Insn(0x95, 0, 0, 0, 0).encode(prog, 8);
        int str = b.section(".strtab", ElfSection.SHT_STRTAB, 0, "\0p\0".getBytes(StandardCharsets.UTF_8), 0, 0, 0);
        int code = b.code("xdp", prog);
        ByteBuffer syms = ElfBuilder.buffer(48);
        ElfBuilder.symbol(syms, 0, 0, 0, 0, 0, 0);
        ElfBuilder.symbol(syms, 1, ElfSymbol.STB_GLOBAL, ElfSymbol.STT_FUNC, code, 0, 16);
        b.section(".symtab", ElfSection.SHT_SYMTAB, 0, syms.array(), str, 1, 24);
        BpfObjectSpec spec = BpfObjectSpec.parse(b.build(), "tiny.o");
        assertThat(spec.program("p").program().insn(0).imm()).isEqualTo(2);
        assertThat(spec.license()).isEmpty();
    }
}
