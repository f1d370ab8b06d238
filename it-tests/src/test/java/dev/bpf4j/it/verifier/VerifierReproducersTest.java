package dev.bpf4j.it.verifier;

import dev.bpf4j.api.Engines;
import dev.bpf4j.cli.conformance.ConformanceHelpers;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.verifier.VerifierException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 21's reproducers, and the classes they stand for: programs on which the interpreter and
 * the JIT used to disagree (frame layout, registers a call clobbered or never set, pointer bits)
 * are rejected by the verifier on every engine, with the kernel's reason; their legitimate
 * neighbours (a pointer into the caller's frame passed as an argument) load and give the same
 * result on both engines.
 */
class VerifierReproducersTest {
    static List<Engine> engines;

    @BeforeAll
    static void bothEngines() {
        engines = Engines.available().stream().filter(e -> !e.name().equals("kernel")).toList();
        Assumptions.assumeTrue(engines.size() >= 2, "needs the interpreter and the JIT");
    }

    record Rejected(String name, String asm, int pc, String reason) {
        @Override public String toString() { return name; }
    }

    static Stream<Rejected> rejected() {
        return Stream.of(
                // 1. a callee reads its caller's frame through its own r10
                new Rejected("callee reads caller frame via own r10",
                        "call local f\nexit\nf:\nmov %r1, %r10\nadd %r1, 520\nldxdw %r0, [%r1+0]\nexit", 4,
                        "invalid stack off=520 size=8"),
                // 2. frame placement: 16 bytes above a callee's frame is the interpreter's gap, the JIT's saved registers
                new Rejected("callee reads above its frame",
                        "stdw [%r10-512], 0x44\ncall local f\nexit\nf:\nmov %r3, %r10\nadd %r3, 16\nldxb %r0, [%r3+0]\nexit", 5,
                        "invalid stack off=16 size=1"),
                new Rejected("frame below the own one",
                        "mov %r1, %r10\nadd %r1, -520\nstdw [%r1+0], 1\nmov %r0, 0\nexit", 2, "invalid stack off=-520 size=8"),
                // 3. registers clobbered by a call, or never given to a subprogram
                new Rejected("subprogram reads an argument never set",
                        "call local f\nexit\nf:\nmov %r0, %r3\nexit", 2, "R3 !read_ok"),
                new Rejected("helper argument clobbered by the previous call",
                        "mov %r1, 7\ncall 5\ncall 5\nexit", 2, "R1 !read_ok"),
                new Rejected("caller reads r1 after a local call",
                        "mov %r1, 7\ncall local f\nmov %r0, %r1\nexit\nf:\nmov %r0, 0\nexit", 2, "R1 !read_ok"),
                // pointer bits: returned, stored outside the stack, compared, partly copied
                new Rejected("frame pointer returned", "mov %r0, %r10\nexit", 1, "R0 leaks addr as return value"),
                new Rejected("frame pointer stored to memory", "stxdw [%r1+0], %r10\nmov %r0, 0\nexit", 0, "R10 leaks addr into ctx"),
                new Rejected("frame pointer compared with a number",
                        "mov %r0, 0\njgt %r10, 4096, done\nmov %r0, 1\ndone:\nexit", 1, "R10 pointer comparison prohibited"),
                new Rejected("frame pointer masked", "mov %r0, %r10\nand %r0, 0xfff\nexit", 1,
                        "R0 bitwise operator &= on pointer prohibited"),
                new Rejected("frame pointer copied in half", "mov32 %r0, %r10\nexit", 0, "R10 partial copy of pointer"),
                new Rejected("spilled pointer read in part",
                        "stxdw [%r10-8], %r10\nldxw %r0, [%r10-8]\nexit", 1, "invalid size of register fill"),
                new Rejected("callee returns its own frame",
                        "call local f\nldxdw %r0, [%r0-8]\nexit\nf:\nmov %r0, %r10\nexit", 4, "cannot return stack pointer to the caller"),
                new Rejected("callee returns its caller's frame",
                        "mov %r1, %r10\nadd %r1, -8\nstdw [%r1+0], 0\ncall local f\nldxdw %r0, [%r0+0]\nexit\nf:\nmov %r0, %r1\nexit", 7,
                        "cannot return stack pointer to the caller"),
                new Rejected("caller reads the r0 a subprogram left unset", "call local f\nexit\nf:\nexit", 1, "R0 !read_ok"),
                new Rejected("callee frame pointer spilled into the caller",
                        "mov %r1, %r10\nadd %r1, -8\ncall local f\nmov %r0, 0\nexit\nf:\nstxdw [%r1+0], %r10\nexit", 5,
                        "cannot spill pointers to stack into stack frame of the caller"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejected")
    void rejectedOnEveryEngine(Rejected c) {
        Program p = Assembler.assembleProgram("repro", c.asm());
        for (Engine e : engines) {
            assertThatThrownBy(() -> Bpf.load(p, e, ConformanceHelpers.loadOptions()).close())
                    .as(e.name())
                    .isInstanceOfSatisfying(VerifierException.class, v -> {
                        assertThat(v.pc()).as(e.name() + ": " + v.getMessage()).isEqualTo(c.pc());
                        assertThat(v.reason()).as(e.name()).contains(c.reason());
                        assertThat(v.getMessage()).contains("program 'repro' rejected");
                    });
        }
    }

    record Accepted(String name, String asm, long r0) {
        @Override public String toString() { return name; }
    }

    static Stream<Accepted> accepted() {
        return Stream.of(
                new Accepted("callee writes the caller's frame through an argument",
                        "stdw [%r10-8], 5\nmov %r1, %r10\nadd %r1, -8\ncall local f\nldxdw %r0, [%r10-8]\nexit\n"
                                + "f:\nldxdw %r2, [%r1+0]\nmul %r2, 3\nstxdw [%r1+0], %r2\nmov %r0, 0\nexit", 15),
                new Accepted("two levels down, a pointer into main's frame",
                        "stdw [%r10-16], 2\nmov %r1, %r10\nadd %r1, -16\ncall local f\nldxdw %r0, [%r10-16]\nexit\n"
                                + "f:\ncall local g\nmov %r0, 0\nexit\n"
                                + "g:\nmov %r0, 0\nexit", 2),
                new Accepted("pointer difference in one frame is a number",
                        "mov %r1, %r10\nadd %r1, -24\nmov %r0, %r10\nsub %r0, %r1\nexit", 24),
                new Accepted("a spilled pointer filled whole",
                        "stdw [%r10-16], 9\nmov %r1, %r10\nadd %r1, -16\nstxdw [%r10-8], %r1\nldxdw %r2, [%r10-8]\nldxdw %r0, [%r2+0]\nexit", 9),
                new Accepted("never-written stack reads as zero on both engines",
                        "call local f\nexit\nf:\nldxdw %r0, [%r10-504]\nexit", 0),
                new Accepted("a subprogram exits with r0 unset, its caller sets r0 (as Linux 6.18)",
                        "call local f\nmov %r0, 7\nexit\nf:\nexit", 7),
                new Accepted("r0 set on every path the bounds allow",
                        "mov %r3, 4\njgt %r3, 3, set\nexit\nset:\nmov %r0, 42\nexit", 42));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("accepted")
    void sameResultOnEveryEngine(Accepted c) {
        Program p = Assembler.assembleProgram("ok", c.asm());
        List<String> outcomes = new ArrayList<>();
        for (Engine e : engines) {
            try (Executable x = Bpf.load(p, e, ConformanceHelpers.loadOptions())) {
                long r0 = x.run(RunContext.builder().build());
                assertThat(r0).as(e.name()).isEqualTo(c.r0());
                outcomes.add(e.name() + ": r0=" + r0);
            } catch (BpfRuntimeException ex) {
                outcomes.add(e.name() + ": " + ex.kind() + " at " + ex.pc());
            }
        }
        assertThat(outcomes).hasSize(engines.size());
    }

    @Test
    void aHelperChecksItsPrototype() {
        // bpf_get_current_comm(buf, size): the buffer must lie in the frame
        LoadOptions o = LoadOptions.defaults().withHelpers(dev.bpf4j.helpers.BpfHelpers.registry(
                dev.bpf4j.maps.MapTable.create(List.of())));
        Program outside = Assembler.assembleProgram("comm", "mov %r1, %r10\nadd %r1, -8\nmov %r2, 16\ncall 16\nexit");
        for (Engine e : engines) {
            assertThatThrownBy(() -> Bpf.load(outside, e, o).close()).isInstanceOfSatisfying(VerifierException.class,
                    v -> assertThat(v.reason()).contains("invalid stack off=-8 size=16"));
        }
        Program inside = Assembler.assembleProgram("comm", "mov %r1, %r10\nadd %r1, -16\nmov %r2, 16\ncall 16\nldxb %r0, [%r10-16]\nexit");
        for (Engine e : engines) Bpf.load(inside, e, o).close();
    }
}
