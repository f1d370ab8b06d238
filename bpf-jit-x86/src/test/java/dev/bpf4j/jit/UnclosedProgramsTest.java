package dev.bpf4j.jit;

import dev.bpf4j.jit.runtime.JitExecutable;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.ProgArrayMap;
import dev.bpf4j.program.Program;
import dev.bpf4j.jit.runtime.ExecutableMemory;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.CodeMap;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Programs loaded and never closed (issue 21, reproducer 6): once unreachable, the JIT's cleaner unregisters and
 * unmaps their code, as the interpreter's frees its machines; a program a prog-array slot still holds keeps its code.
 */
class UnclosedProgramsTest {
    /** -Dbpf4j.test.unclosedPrograms=30000 reproduces the count. */
    static final int PROGRAMS = Integer.getInteger("bpf4j.test.unclosedPrograms", 1000);

    /** r0 = r1 * 3 + n: a distinct program per n. */
    static Program numbered(int n) {
        return I.prog("unclosed" + n, I.mov64r(0, 1), I.alu64(dev.bpf4j.isa.Opcodes.MUL, 0, 3), I.alu64(dev.bpf4j.isa.Opcodes.ADD, 0, n), I.exit());
    }

    /** Collects until {@code done} holds, for at most about 20 s; false when it never did. */
    static boolean collectUntil(BooleanSupplier done) throws InterruptedException {
        for (int i = 0; i < 200 && !done.getAsBoolean(); i++) {
            System.gc();
            Thread.sleep(100);
        }
        return done.getAsBoolean();
    }

    @Test
    void unreachableProgramsAreUnmappedAndUnregistered() throws Exception {
        Jit.run(numbered(0)); // maps what the first run maps for good (the JNI entry trampoline)
        ExecutableMemory.Mapped before = ExecutableMemory.mappedNow();
        List<Executable> jit = new ArrayList<>(), interp = new ArrayList<>();
        List<Long> entries = new ArrayList<>();
        for (int n = 0; n < PROGRAMS; n++) {
            Executable j = Jit.ENGINE.load(numbered(n), LoadOptions.defaults());
            Executable i = Both.INTERP.load(numbered(n), LoadOptions.defaults());
            RunContext ctx = RunContext.builder().arg(1, n).build();
            assertThat(j.run(ctx)).as("program %d", n).isEqualTo(i.run(ctx)).isEqualTo(3L * n + n);
            jit.add(j);
            interp.add(i);
            entries.add(((JitExecutable) j).entryAddress());
        }
        ExecutableMemory.Mapped loaded = ExecutableMemory.mappedNow();
        assertThat(loaded.mappings()).isGreaterThanOrEqualTo(before.mappings() + PROGRAMS);
        assertThat(loaded.bytes()).isGreaterThanOrEqualTo(before.bytes() + PROGRAMS * 4096L);

        jit.clear();
        interp.clear();
        // The thread's run state keeps the last program it ran (until its next run): allow that one.
        boolean freed = collectUntil(() -> ExecutableMemory.mappedNow().mappings() <= before.mappings() + 1);
        ExecutableMemory.Mapped after = ExecutableMemory.mappedNow();
        System.out.printf("UnclosedProgramsTest: %d programs; JIT code mapped before %s, loaded %s, after GC %s%n",
                PROGRAMS, before, loaded, after);
        assertThat(freed).as("mapped before %s, loaded %s, after GC %s", before, loaded, after).isTrue();
        assertThat(after.bytes()).isLessThanOrEqualTo(before.bytes() + 4096L * 4);
        long stillRegistered = entries.stream().filter(e -> CodeMap.global().find(e).isPresent()).count();
        assertThat(stillRegistered).as("code-map entries of collected programs").isLessThanOrEqualTo(1);
    }

    /** One engine: a caller tail-calls slot 0, which only the prog array holds, after GC ran. */
    static String tailCallAfterGc(Engine engine) throws Exception {
        long out = NativeMemory.allocate(TailCallTest.OUT);
        try (MapTable maps = MapTable.create(List.of(new MapDefinition("jmp", MapType.PROG_ARRAY, 4, 4, 4, 0)))) {
            NativeMemory.setMemory(out, TailCallTest.OUT, (byte) 0);
            long jmp = maps.handle("jmp");
            LoadOptions o = LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps));
            ((ProgArrayMap) maps.map("jmp").orElseThrow()).set(0, engine.load(TailCallTest.stackReader(jmp), o), 0);
            for (int i = 0; i < 5; i++) { // the cleaner's chances to free the target, which only the slot holds
                System.gc();
                Thread.sleep(50);
            }
            try (Executable caller = engine.load(TailCallTest.caller(jmp), o)) {
                long r0 = caller.run(RunContext.builder().arg(1, out).region(new MemoryRegion("out", out, TailCallTest.OUT, true)).build());
                StringBuilder s = new StringBuilder("r0=" + Long.toHexString(r0) + " out=");
                for (byte b : NativeMemory.read(out, TailCallTest.OUT)) s.append(String.format("%02x", b & 0xff));
                return s.toString();
            }
        } finally {
            NativeMemory.free(out);
        }
    }

    @Test
    void aProgramHeldOnlyByAProgArraySlotKeepsItsCode() throws Exception {
        String want = tailCallAfterGc(Both.INTERP);
        assertThat(want).startsWith("r0=77 ");
        assertThat(tailCallAfterGc(Jit.ENGINE)).isEqualTo(want);
    }
}
