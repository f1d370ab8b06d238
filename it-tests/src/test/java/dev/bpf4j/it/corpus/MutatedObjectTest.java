package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfException;
import dev.bpf4j.runtime.BpfLoadException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * Objects whose instructions were mutated (issue 21, reproducer 5): every load failure is a {@link BpfLoadException}
 * naming the program, the pc and the reason, on both engines — never an exception of the load code itself
 * (the spin lock rules once met register r12 before the validator did and threw ArrayIndexOutOfBoundsException).
 */
class MutatedObjectTest {
    static final String[] ENGINES = {"interp", "jit", "jvm"};

    /** spin_lock.o with {@code insn} at {@code pc} of xdp_spin. */
    static BpfObjectSpec withInsn(int pc, Insn insn) {
        BpfObjectSpec spec = BpfObjectSpec.read(CorpusCase.DIR.resolve("spin_lock.o"));
        ProgramSpec p = spec.program("xdp_spin");
        List<Insn> insns = new ArrayList<>(p.program().insns());
        insns.set(pc, insn);
        ProgramSpec mutated = new ProgramSpec(p.name(), p.section(), p.type(), p.attachType(), p.attachTarget(), p.sleepable(),
                new Program(p.name(), insns), p.mapReferences(), p.functions(), p.funcInfos(), p.lineInfos(), p.coreRelocations());
        return new BpfObjectSpec(spec.name(), spec.license(), spec.kernelVersion(), List.of(mutated), spec.maps(), spec.btf());
    }

    @Test void anInvalidRegisterInAProgramThatTakesASpinLockIsRejectedWithItsPc() {
        for (String engine : ENGINES) {
            // mov64 r12, r1 at pc 0: the spin lock rules follow every register copy from pc 0 on
            assertThatThrownBy(() -> BpfObject.open(withInsn(0, new Insn(0xbf, 12, 1, 0, 0))).load(ObjectLoadOptions.engine(engine)))
                    .as(engine).isExactlyInstanceOf(BpfLoadException.class)
                    .hasMessageStartingWith("load program xdp_spin pc 0 ")
                    .hasMessageContaining("r12");
        }
    }

    @Test void theUnmutatedObjectStillLoadsAndRunsTheSameOnBothEngines() {
        List<Long> retvals = new ArrayList<>();
        for (String engine : ENGINES) {
            try (BpfObject obj = BpfObject.open(withInsn(0, BpfObjectSpec.read(CorpusCase.DIR.resolve("spin_lock.o"))
                    .program("xdp_spin").program().insn(0))).load(ObjectLoadOptions.engine(engine))) {
                retvals.add(obj.program("xdp_spin").run(RunOptions.packet(Packets.udp(53, 10))).retval());
            }
        }
        assertThat(retvals.get(1)).isEqualTo(retvals.get(0));
    }

    /** Seeded random field mutations of xdp_spin: each either loads on both engines or fails the same way on both. */
    @Test void randomMutationsLoadOrFailWithABpfExceptionTheSameOnBothEngines() {
        long seed = Long.getLong("bpf4j.mutation.seed", 21);
        Random random = new Random(seed);
        int length = BpfObjectSpec.read(CorpusCase.DIR.resolve("spin_lock.o")).program("xdp_spin").program().length();
        Insn[] original = BpfObjectSpec.read(CorpusCase.DIR.resolve("spin_lock.o")).program("xdp_spin").program().toArray();
        int rejected = 0;
        for (int n = 0; n < 300; n++) {
            int pc = random.nextInt(length);
            Insn o = original[pc];
            Insn m = switch (random.nextInt(4)) {
                case 0 -> new Insn(o.opcode(), random.nextInt(16), o.src(), o.off(), o.imm());
                case 1 -> new Insn(o.opcode(), o.dst(), random.nextInt(16), o.off(), o.imm());
                case 2 -> new Insn(o.opcode(), o.dst(), o.src(), (short) random.nextInt(), o.imm());
                default -> new Insn(random.nextInt(256), o.dst(), o.src(), o.off(), o.imm());
            };
            String[] outcome = new String[ENGINES.length];
            for (int e = 0; e < ENGINES.length; e++) {
                try (BpfObject obj = BpfObject.open(withInsn(pc, m)).load(ObjectLoadOptions.engine(ENGINES[e]))) {
                    outcome[e] = "loaded";
                } catch (BpfException ex) {
                    assertThat(ex.getMessage()).as("seed %d, pc %d, %s", seed, pc, m).startsWith("load program xdp_spin");
                    outcome[e] = ex.getMessage().replace(" into " + ENGINES[e], "");
                } catch (RuntimeException ex) {
                    throw new AssertionError("seed " + seed + ", pc " + pc + ", " + m + " on " + ENGINES[e] + ": " + ex, ex);
                }
            }
            assertThat(outcome[1]).as("seed %d, pc %d, %s", seed, pc, m).isEqualTo(outcome[0]);
            if (!outcome[0].equals("loaded")) rejected++;
        }
        if (rejected == 0) fail("no mutation was rejected: the test exercises nothing");
    }

    /**
     * Seeded bit flips anywhere in the corpus objects (headers, BTF, relocations, code): opening and loading each one on
     * both engines either succeeds on both or fails on both with a BpfException (a BpfLoadException, or a run-time check
     * for a flip the loader cannot see), never an exception of bpf4j's own code.
     */
    @Test void bitFlippedObjectsFailWithABpfExceptionOnBothEngines(@TempDir Path dir) throws Exception {
        long seed = Long.getLong("bpf4j.mutation.seed", 21);
        Random random = new Random(seed);
        List<Path> objects;
        try (var files = Files.list(CorpusCase.DIR)) {
            objects = files.filter(p -> p.toString().endsWith(".o")).sorted().toList();
        }
        Path mutated = dir.resolve("mutated.o");
        int failed = 0;
        for (int n = 0; n < 200; n++) {
            Path source = objects.get(random.nextInt(objects.size()));
            byte[] bytes = Files.readAllBytes(source);
            int flips = 1 + random.nextInt(4);
            for (int k = 0; k < flips; k++) bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
            Files.write(mutated, bytes);
            String[] outcome = new String[ENGINES.length];
            for (int e = 0; e < ENGINES.length; e++) {
                try (BpfObject obj = BpfObject.open(mutated).load(ObjectLoadOptions.engine(ENGINES[e]))) {
                    outcome[e] = "loaded";
                } catch (BpfException ex) {
                    outcome[e] = "failed: " + ex.getMessage().replace(" into " + ENGINES[e], "");
                } catch (RuntimeException ex) {
                    throw new AssertionError("seed " + seed + ", mutation " + n + " of " + source.getFileName() + " on " + ENGINES[e] + ": " + ex, ex);
                }
            }
            assertThat(outcome[1]).as("seed %d, mutation %d of %s", seed, n, source.getFileName()).isEqualTo(outcome[0]);
            if (outcome[0].startsWith("failed")) failed++;
        }
        if (failed == 0) fail("no mutated object failed to load: the test exercises nothing");
    }
}
