package dev.bpf4j.jvm;

import dev.bpf4j.analysis.RegionProof;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guarded copy (docs/jvm-engine.md): the data-buffer accesses of main that RegionProof proves are
 * emitted without a check only in a copy that a run enters when its entry r1/r2 pass the guard. Each
 * program runs over a 64-byte region inside a larger allocation with (data, len) pairs that fit it and
 * pairs that do not (len past the region, data before it, a read-only region for a store), verified
 * and not, on the interpreter, the JIT and the jvm engine: the same r0 or error kind, pc and address,
 * and the same memory.
 */
class GuardedCopyTest {
    private static final LoadOptions OPTIONS = LoadOptions.defaults().withEntryArgs(2);
    private static final int PAD = 16, BUF = 64, TOTAL = BUF + 2 * PAD;
    private static final long[][] CONTEXTS = {
        {0, 0}, {0, 13}, {0, 14}, {0, 15}, {0, 64}, {8, 56}, {8, 57}, {0, 65}, {0, 200}, {-4, 20}, {60, 4}, {60, 14}, {50, 14}};

    private final long mem = NativeMemory.allocate(TOTAL);

    @AfterEach void free() { NativeMemory.free(mem); }

    /** r0 = 0; r4 = end; r3 = data + 14; if r3 > r4 goto out; pc 6: access data + 13; exit; out: r0 = 7. */
    private static Program tested(String access) {
        return Assembler.assembleProgram("t", """
                mov %r0, 0
                mov %r4, %r1
                add %r4, %r2
                mov %r3, %r1
                add %r3, 14
                jgt %r3, %r4, +2
                """ + access + """
                exit
                mov %r0, 7
                exit
                """);
    }

    private static final Program LOAD = tested("ldxb %r0, [%r1+13]\n");
    private static final Program STORE = tested("stb [%r1+13], 9\n");

    @Test void theProvenAccessIsUncheckedOnlyInTheGuardedCopy() {
        for (Program p : List.of(LOAD, STORE)) {
            JvmProgram checked = JvmCompiler.compile(p, OPTIONS, null);
            assertThat(checked.guarded).as("a guarded copy").isNotNull();
            assertThat(checked.unchecked[6]).as("the checked code keeps the check").isFalse();
            assertThat(checked.guarded.unchecked[6]).as("the copy leaves it out").isTrue();
            assertThat(checked.guarded.handleBase).isEqualTo(checked.handleBase);
            assertThat(checked.guardWritable).isEqualTo(p == STORE);
        }
    }

    @Test void theGuardPicksTheCopyOnlyWhenTheDataBufferFitsOneRegion() {
        JvmProgram checked = JvmCompiler.compile(LOAD, OPTIONS, null);
        JvmMachine m = new JvmMachine(checked, null);
        try {
            assertThat(entered(m, 0, 14)).isSameAs(checked.guarded);
            assertThat(entered(m, 0, BUF)).isSameAs(checked.guarded);
            assertThat(entered(m, 60, 14)).as("len past the region").isSameAs(checked);
            assertThat(entered(m, -4, 20)).as("data before the region").isSameAs(checked);
            assertThat(entered(m, 0, -1)).as("data + len wraps").isSameAs(checked);
        } finally {
            m.free();
        }
    }

    private JvmProgram entered(JvmMachine m, long dataOff, long len) {
        m.reset(context(dataOff, len, true));
        return m.prog;
    }

    @Test void aLengthTheRegionDoesNotHoldFailsAtThePcTheInterpreterNames() {
        // len 14 at region + 60 passes the program's own test, not the guard: the checked load fails
        assertThat(sameOnAllEngines(LOAD, true)).contains("r0=7", "OUT_OF_BOUNDS@6 addr=+89");
    }

    @Test void aStoreIntoAReadOnlyRegionFailsThroughTheCheckedCode() {
        assertThat(sameOnAllEngines(STORE, false)).contains("OUT_OF_BOUNDS@6 addr=+29");
        assertThat(sameOnAllEngines(STORE, true)).contains("r0=0", "OUT_OF_BOUNDS@6 addr=+89");
    }

    @Test void anAccessInALoopKeepsItsCheck() {
        // fnv1a's loop: r3 = 0; loop: r0 = byte at data + r3 (proven: r3 < len); r3++; if r3 < len goto loop
        Program p = Assembler.assembleProgram("loop", """
                mov %r0, 0
                jeq %r2, 0, +7
                mov %r3, 0
                mov %r5, %r1
                add %r5, %r3
                ldxb %r0, [%r5+0]
                jgt %r3, 4094, +2
                add %r3, 1
                jlt %r3, %r2, -6
                exit
                """);
        assertThat(RegionProof.provenAccesses(p.toArray(), 0, p.insns().size())[5]).as("proven").isTrue();
        assertThat(JvmCompiler.compile(p, OPTIONS, null).guarded).isNull();
    }

    @Test void noCopyWhenMainIsAlsoCalled() {
        Program p = Assembler.assembleProgram("called", """
                mov %r0, 0
                mov %r4, %r1
                add %r4, %r2
                mov %r3, %r1
                add %r3, 14
                jgt %r3, %r4, +2
                ldxb %r0, [%r1+13]
                exit
                call local -9
                exit
                """);
        assertThat(JvmCompiler.compile(p, OPTIONS, null).guarded).isNull();
    }

    /** The outcomes of every context, checked to agree across the engines, verified and not. */
    private List<String> sameOnAllEngines(Program p, boolean writable) {
        List<String> all = new ArrayList<>();
        for (boolean verify : new boolean[]{false, true}) {
            for (long[] c : CONTEXTS) {
                String first = null;
                for (Engine e : Trio.ENGINES) {
                    String o = outcome(e, p, verify, c[0], c[1], writable);
                    if (first == null) first = o;
                    else assertThat(o).as("%s, verified %s, data +%d len %d", e.name(), verify, c[0], c[1]).isEqualTo(first);
                }
                all.add(first.substring(0, first.indexOf(" [")));
            }
        }
        return all;
    }

    private String outcome(Engine e, Program p, boolean verify, long dataOff, long len, boolean writable) {
        byte[] init = new byte[TOTAL];
        for (int i = 0; i < TOTAL; i++) init[i] = (byte) (i * 37 + 11);
        NativeMemory.write(mem, init, 0, TOTAL);
        String r;
        try (Executable x = verify ? Bpf.load(p, e, OPTIONS) : e.load(p, OPTIONS)) {
            r = "r0=" + x.run(context(dataOff, len, writable));
        } catch (BpfRuntimeException ex) {
            r = ex.kind() + "@" + ex.pc() + " addr=+" + (ex.address() - mem);
        }
        return r + " " + Arrays.toString(NativeMemory.read(mem, TOTAL));
    }

    private RunContext context(long dataOff, long len, boolean writable) {
        long data = mem + PAD + dataOff;
        return RunContext.builder().region(new MemoryRegion("buf", mem + PAD, BUF, writable)).arg(1, data).arg(2, len).build();
    }
}
