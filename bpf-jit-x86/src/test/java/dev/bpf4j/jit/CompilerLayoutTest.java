package dev.bpf4j.jit;

import dev.bpf4j.jit.compiler.CompiledProgram;
import dev.bpf4j.jit.compiler.FunctionLayout;
import dev.bpf4j.jit.compiler.JitLayout;
import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.jit.I.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Jump sizes converge (rel8 where it reaches, rel32 elsewhere); the layout describes the code exactly. */
class CompilerLayoutTest {
    private static Program longAndShort() {
        List<Object> parts = new ArrayList<>();
        parts.add(mov64(0, 0));                        // 0
        parts.add(jmp(JEQ, 0, 0, 200));                // 1: far forward -> 202
        parts.add(jmp(JNE, 0, 0, 1));                  // 2: near forward -> 4
        parts.add(alu64(ADD, 0, 1));                   // 3
        for (int i = 0; i < 198; i++) parts.add(alu64(ADD, 0, 1000)); // 4..201
        parts.add(exit());                             // 202
        return prog("layout", parts.toArray());
    }

    @Test
    void shortJumpsWhereTheyReachNearOnesElsewhere() {
        CompiledProgram c = Jit.LOADER.compile(longAndShort(), LoadOptions.defaults());
        byte[] code = c.code();
        JitLayout l = c.layout();
        // A pessimistic first pass, at least one more until two agree, then the checking pass.
        assertThat(c.passes()).isBetween(3, 22);
        // pc 1: test rax, rax (3 bytes) then jcc rel32 (0f 84); pc 2: test then jcc rel8 (75).
        int j1 = l.nativeOffset(1) + 3, j2 = l.nativeOffset(2) + 3;
        assertThat(code[j1] & 0xff).isEqualTo(0x0f);
        assertThat(code[j1 + 1] & 0xff).isEqualTo(0x84);
        assertThat(l.nativeOffset(2) - l.nativeOffset(1)).isEqualTo(9);
        assertThat(code[j2] & 0xff).isEqualTo(0x75);
        assertThat(l.nativeOffset(3) - l.nativeOffset(2)).isEqualTo(5);
        // Each jump lands on the first byte of its target's code.
        int rel32 = (code[j1 + 2] & 0xff) | (code[j1 + 3] & 0xff) << 8 | (code[j1 + 4] & 0xff) << 16 | code[j1 + 5] << 24;
        assertThat(j1 + 6 + rel32).isEqualTo(l.nativeOffset(202));
        assertThat(j2 + 2 + code[j2 + 1]).isEqualTo(l.nativeOffset(4));
        assertThat(Jit.run(longAndShort())).isEqualTo(0);
    }

    @Test
    void layoutCoversFunctionsAndStubs() {
        Program p = prog("fns", mov64(1, 1), callLocal(1), exit(), mov64r(0, 1), callLocal(1), exit(), mov64(0, 7), exit());
        try (JitExecutable x = Jit.LOADER.load(p, LoadOptions.defaults())) {
            JitLayout l = x.layout();
            assertThat(l.functions()).extracting(FunctionLayout::startPc).containsExactly(0, 3, 6);
            int end = 0;
            for (FunctionLayout f : l.functions()) {
                assertThat(f.codeOffset()).isEqualTo(end);
                assertThat(f.fpStart()).isEqualTo(f.codeOffset() + 4); // push rbp; mov rbp, rsp
                for (int pc = f.startPc(); pc < f.endPc(); pc++) {
                    assertThat(l.nativeOffset(pc)).isBetween(f.fpStart(), f.leaveOffset());
                }
                end = f.codeOffset() + f.codeSize();
            }
            assertThat(l.stubOffset()).isEqualTo(end);
            assertThat(l.imageSize()).isEqualTo(l.stubOffset() + l.stubSize());
            assertThat(x.compiled().code()[l.functions().get(1).codeOffset()] & 0xff).isEqualTo(0x55); // push rbp
            assertThat(x.run(RunContext.builder().build())).isEqualTo(7);
        }
    }

    @Test
    void unwindRowsCoverEveryByteOfEveryRegion() {
        Program calls = prog("rows", mov64(1, 1), callLocal(1), exit(), mov64r(0, 1), exit());
        Program self = prog("self", mov64(0, 0), jmp(JEQ, 1, 0, 2), alu64(SUB, 1, 1), callLocal(-4), exit());
        for (Program p : List.of(calls, self)) {
            try (JitExecutable x = Jit.LOADER.load(p, LoadOptions.defaults())) {
                for (dev.bpf4j.unwind.CodeRegion r : x.codeRegions()) {
                    int next = 0;
                    for (dev.bpf4j.unwind.UnwindRow row : r.rows()) {
                        assertThat(row.startOffset()).as(r.symbol()).isEqualTo(next);
                        next = row.endOffset();
                    }
                    assertThat((long) next).as(r.symbol() + " covered to its end").isEqualTo(r.size());
                    // Function-like regions start with push rbp before the frame exists.
                    if (!r.symbol().endsWith("__stubs")) {
                        assertThat(r.ruleAt(r.start())).isEqualTo(dev.bpf4j.unwind.CfaRule.RETURN_AT_SP);
                        assertThat(r.ruleAt(r.start() + 1)).isEqualTo(dev.bpf4j.unwind.CfaRule.RETURN_AT_SP_PLUS_8);
                        assertThat(r.ruleAt(r.end() - 1)).isEqualTo(dev.bpf4j.unwind.CfaRule.RETURN_AT_SP);
                    }
                }
            }
        }
    }

    @Test
    void loadErrorsNameTheProgramAndPc() {
        assertThatThrownBy(() -> Jit.ENGINE.load(prog("w10", mov64(10, 1), exit()), LoadOptions.defaults()))
                .isInstanceOf(BpfLoadException.class).hasMessageContaining("'w10' pc 0").hasMessageContaining("r10");
        assertThatThrownBy(() -> Jit.ENGINE.load(prog("kf", new dev.bpf4j.isa.Insn(JMP | CALL, 0, 2, 0, 5), exit()), LoadOptions.defaults()))
                .isInstanceOf(BpfLoadException.class).hasMessageContaining("pc 0");
        assertThatThrownBy(() -> Jit.ENGINE.load(prog("map", new dev.bpf4j.isa.Insn(LDDW, 1, PSEUDO_MAP_FD, 0, 3),
                new dev.bpf4j.isa.Insn(0, 0, 0, 0, 0), mov64(0, 0), exit()), LoadOptions.defaults()))
                .isInstanceOf(BpfLoadException.class).hasMessageContaining("relocated");
        assertThatThrownBy(() -> Jit.ENGINE.load(prog("far", ja(5), exit()), LoadOptions.defaults()))
                .isInstanceOf(BpfLoadException.class).hasMessageContaining("pc 0");
        assertThatThrownBy(() -> Jit.ENGINE.load(prog("abs", new dev.bpf4j.isa.Insn(LD | ABS | W, 0, 0, 0, 0), exit()), LoadOptions.defaults()))
                .isInstanceOf(BpfLoadException.class).hasMessageContaining("pc 0");
    }

    @Test
    void closingFromInsideOwnRunIsRefusedNotAHang() {
        JitExecutable[] self = new JitExecutable[1];
        HelperRegistry h = HelperRegistry.builder().add(1, "closer", (call, a, b, c, d, e) -> { self[0].close(); return 0; }).build();
        self[0] = Jit.LOADER.load(prog("self", call(1), exit()), LoadOptions.defaults().withHelpers(h));
        assertThatThrownBy(() -> self[0].run(RunContext.builder().build())).isInstanceOf(dev.bpf4j.runtime.BpfRuntimeException.class)
                .hasRootCauseInstanceOf(IllegalStateException.class);
        self[0].close();
    }
}
