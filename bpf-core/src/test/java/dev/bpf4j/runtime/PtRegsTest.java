package dev.bpf4j.runtime;

import dev.bpf4j.unwind.ExternalTool;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** PtRegs' native layout against the uapi {@code struct pt_regs} (offsetof/sizeof printed by gcc) and round trips. */
class PtRegsTest {
    private static final Map<String, Integer> OURS = new LinkedHashMap<>();
    static {
        OURS.put("r15", PtRegs.OFF_R15); OURS.put("r14", PtRegs.OFF_R14); OURS.put("r13", PtRegs.OFF_R13);
        OURS.put("r12", PtRegs.OFF_R12); OURS.put("rbp", PtRegs.OFF_BP); OURS.put("rbx", PtRegs.OFF_BX);
        OURS.put("r11", PtRegs.OFF_R11); OURS.put("r10", PtRegs.OFF_R10); OURS.put("r9", PtRegs.OFF_R9);
        OURS.put("r8", PtRegs.OFF_R8); OURS.put("rax", PtRegs.OFF_AX); OURS.put("rcx", PtRegs.OFF_CX);
        OURS.put("rdx", PtRegs.OFF_DX); OURS.put("rsi", PtRegs.OFF_SI); OURS.put("rdi", PtRegs.OFF_DI);
        OURS.put("orig_rax", PtRegs.OFF_ORIG_AX); OURS.put("rip", PtRegs.OFF_IP); OURS.put("cs", PtRegs.OFF_CS);
        OURS.put("eflags", PtRegs.OFF_FLAGS); OURS.put("rsp", PtRegs.OFF_SP); OURS.put("ss", PtRegs.OFF_SS);
    }

    private static PtRegs sample() {
        return new PtRegs(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21);
    }

    @Test
    void nativeRoundTripKeepsTheKernelFieldOrder() {
        PtRegs r = sample();
        byte[] b = r.toBytes();
        assertThat(b).hasSize(PtRegs.SIZE);
        assertThat(PtRegs.fromBytes(b, 0)).isEqualTo(r);
        long a = r.allocate();
        try {
            assertThat(NativeMemory.getLong(a + PtRegs.OFF_IP)).isEqualTo(17);
            assertThat(NativeMemory.getLong(a + PtRegs.OFF_DI)).isEqualTo(15);
            assertThat(NativeMemory.getLong(a + PtRegs.OFF_SS)).isEqualTo(21);
            assertThat(PtRegs.read(a)).isEqualTo(r);
        } finally {
            NativeMemory.free(a);
        }
        int i = 1;
        for (int off : OURS.values()) assertThat(off).isEqualTo(8 * (i++ - 1));
    }

    @Test
    void argumentsAreTheSysVRegistersAsPtRegsParmReadsThem() {
        PtRegs r = PtRegs.of(0x401000, 0x7ffd0000, 0x7ffd0040).withArgs(1, 2, 3, 4, 5, 6).withAx(99);
        assertThat(new long[] {r.di(), r.si(), r.dx(), r.cx(), r.r8(), r.r9()}).containsExactly(1, 2, 3, 4, 5, 6);
        for (int i = 0; i < 6; i++) assertThat(r.arg(i)).isEqualTo(i + 1);
        assertThat(r.ax()).isEqualTo(99);
        assertThat(r.ip()).isEqualTo(0x401000);
        assertThat(r.sp()).isEqualTo(0x7ffd0000);
        assertThat(r.bp()).isEqualTo(0x7ffd0040);
        assertThat(r.withArgs(7).di()).isEqualTo(7);
        assertThat(r.withArgs(7).si()).isEqualTo(2);
        assertThatThrownBy(() -> r.withArgs(1, 2, 3, 4, 5, 6, 7)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PtRegs.fromBytes(new byte[100], 0)).hasMessageContaining("168");
    }

    @Test
    void runContextCarriesRegistersAndRefusesASnapshotWithoutThem() {
        PtRegs r = PtRegs.of(1, 2, 3);
        assertThat(RunContext.builder().build().registers()).isEmpty();
        assertThat(RunContext.builder().registers(r).build().registers()).contains(r);
        assertThatThrownBy(() -> RunContext.builder().stackSnapshot(new dev.bpf4j.unwind.SnapshotMemoryView(0, new byte[8])).build())
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void layoutMatchesTheUapiHeaderCompiledWithGcc() throws Exception {
        Assumptions.assumeTrue(Files.exists(Path.of("/usr/include/x86_64-linux-gnu/asm/ptrace.h")), "no uapi asm/ptrace.h");
        Assumptions.assumeTrue(ExternalTool.available("gcc"), "gcc is not installed");
        StringBuilder c = new StringBuilder("#include <stdio.h>\n#include <stddef.h>\n#include <asm/ptrace.h>\nint main(void) {\n");
        c.append("  printf(\"size %zu\\n\", sizeof(struct pt_regs));\n");
        for (String f : OURS.keySet()) c.append("  printf(\"").append(f).append(" %zu\\n\", offsetof(struct pt_regs, ").append(f).append("));\n");
        c.append("  return 0;\n}\n");
        Path dir = Files.createTempDirectory("bpf4j-ptregs-");
        Path src = dir.resolve("p.c"), exe = dir.resolve("p");
        Files.writeString(src, c.toString());
        ExternalTool.run(List.of("gcc", "-o", exe.toString(), src.toString()));
        Map<String, Integer> theirs = new LinkedHashMap<>();
        for (String line : ExternalTool.run(List.of(exe.toString())).trim().split("\n")) {
            String[] kv = line.split(" ");
            theirs.put(kv[0], Integer.parseInt(kv[1]));
        }
        assertThat(theirs.remove("size")).isEqualTo(PtRegs.SIZE);
        assertThat(theirs).isEqualTo(OURS);
        for (Path p : List.of(exe, src, dir)) Files.deleteIfExists(p);
    }
}
