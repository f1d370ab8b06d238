package dev.bpf4j.fuzz;

import dev.bpf4j.isa.Insn;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static dev.bpf4j.isa.Opcodes.*;
import static org.assertj.core.api.Assertions.assertThat;

class GeneratorTest {
    static final Path CORPUS = Path.of("../it-tests/src/test/resources/conformance");

    static List<ProgramGenerator> generators() {
        return List.of(new GrammarGenerator(), new GrammarGenerator(GrammarOptions.defaults().withFrameEscapes(true)),
                new RawBytesGenerator(), new DataFileMutator(CorpusFiles.collect(CORPUS)));
    }

    @Test void everyGeneratorIsDeterministicPerSeed() {
        for (ProgramGenerator g : generators()) {
            Set<List<Insn>> distinct = new HashSet<>();
            for (long seed = 0; seed < 50; seed++) {
                FuzzCase a = g.generate(seed), b = g.generate(seed);
                assertThat(b.insns()).as(g.name() + " seed " + seed).isEqualTo(a.insns());
                assertThat(Arrays.equals(a.mem(), b.mem())).as(g.name() + " seed " + seed + " memory block").isTrue();
                assertThat(a.origin()).contains("seed " + seed);
                distinct.add(a.insns());
            }
            assertThat(distinct).as(g.name() + ": different seeds, different programs").hasSizeGreaterThan(40);
        }
    }

    /** Over a few hundred seeds the grammar writes every instruction shape the brief lists. */
    @Test void grammarCoversEveryInstructionClass() {
        Set<String> seen = new HashSet<>();
        GrammarGenerator g = new GrammarGenerator();
        for (long seed = 0; seed < 400; seed++) {
            List<Insn> p = g.generate(seed).insns();
            for (int pc = 0; pc < p.size(); pc++) seen.addAll(shapes(p.get(pc), pc));
        }
        assertThat(seen).contains("alu64", "alu32", "sdiv", "smod", "movsx", "neg", "le", "be", "bswap", "lddw",
                "jmp", "jmp32", "ja", "gotol", "back-edge", "call-local", "call-helper", "exit",
                "ldx-b", "ldx-h", "ldx-w", "ldx-dw", "ldxs-b", "ldxs-h", "ldxs-w", "st-b", "st-h", "st-w", "st-dw",
                "stx-b", "stx-h", "stx-w", "stx-dw", "atomic-w", "atomic-dw",
                "atomic-add", "atomic-or", "atomic-and", "atomic-xor", "atomic-fetch-add", "atomic-fetch-or", "atomic-fetch-and",
                "atomic-fetch-xor", "atomic-xchg", "atomic-cmpxchg");
        for (int h : FuzzConventions.HELPERS) assertThat(seen).contains("helper-" + h);
    }

    /** Object programs: maps of every kind, every map helper, callbacks, tail calls, LD_ABS/LD_IND, packet and context, deep chains. */
    @Test void objectProgramsCoverWhatOnlyObjectsHave() {
        Set<String> seen = new java.util.TreeSet<>();
        GrammarGenerator g = new GrammarGenerator(GrammarOptions.defaults().withObjectPercent(100));
        for (long seed = 0; seed < 400; seed++) {
            FuzzCase c = g.generate(seed);
            assertThat(c.isObject()).isTrue();
            assertThat(c.mem().length).as("a packet holds an Ethernet header").isGreaterThanOrEqualTo(14);
            seen.addAll(Coverage.classes(c));
        }
        assertThat(seen).contains("map-array", "map-hash", "map-percpu_array", "map-percpu_hash", "map-lru_hash", "map-lru_percpu_hash",
                "map-ringbuf", "map-prog_array", "map-lookup", "map-update", "map-delete", "ringbuf-output", "ringbuf-reserve",
                "bpf_loop", "for_each_map_elem", "lddw-func", "lddw-map", "tail_call", "ld_abs", "ld_ind", "packet-direct",
                "ctx-load", "ctx-store", "call-depth-8", "call-depth>8", "atomic-cmpxchg", "atomic-xchg", "atomic-fetch",
                "ldxsx8", "ldxsx16", "ldxsx32", "movsx64", "bswap");
    }

    @Test void objectShapesSurviveTheirReproducerSection() {
        GrammarGenerator g = new GrammarGenerator(GrammarOptions.defaults().withObjectPercent(100));
        for (long seed = 0; seed < 50; seed++) {
            ObjectShape shape = g.generate(seed).object();
            assertThat(ObjectShape.parse(shape.describe())).isEqualTo(shape);
        }
    }

    /** Every function of an object case gets func_info at its first instruction, as Linux wants for callbacks. */
    @Test void objectSpecsNameEveryFunction() {
        GrammarGenerator g = new GrammarGenerator(GrammarOptions.defaults().withObjectPercent(100));
        for (long seed = 0; seed < 100; seed++) {
            FuzzCase c = g.generate(seed);
            var p = ObjectSpecs.of(c).program(ObjectSpecs.PROGRAM);
            assertThat(p.funcInfos()).hasSameSizeAs(p.functions());
            for (int f = 0; f < p.functions().size(); f++) assertThat(p.funcInfos().get(f).insnIndex()).isEqualTo(p.functions().get(f).pc());
            int lddwMaps = (int) c.insns().stream().filter(i -> i.opcode() == LDDW && i.src() == PSEUDO_MAP_FD).count();
            assertThat(p.mapReferences()).hasSize(lddwMaps);
        }
    }

    static Set<String> shapes(Insn i, int pc) {
        Set<String> s = new HashSet<>();
        int cls = cls(i.opcode()), op = op(i.opcode());
        String[] size = {"w", "h", "b", "dw"};
        switch (cls) {
            case ALU, ALU64 -> {
                s.add(cls == ALU64 ? "alu64" : "alu32");
                if (op == DIV && i.off() == 1) s.add("sdiv");
                if (op == MOD && i.off() == 1) s.add("smod");
                if (op == MOV && source(i.opcode()) == X && i.off() != 0) s.add("movsx");
                if (op == NEG) s.add("neg");
                if (op == END) s.add(cls == ALU64 ? "bswap" : source(i.opcode()) == TO_BE ? "be" : "le");
            }
            case JMP, JMP32 -> {
                s.add(cls == JMP ? "jmp" : "jmp32");
                if (op == JA) s.add(cls == JMP ? "ja" : "gotol");
                if (op == CALL) s.add(i.src() == PSEUDO_CALL ? "call-local" : "call-helper");
                if (op == CALL && i.src() == 0) s.add("helper-" + i.imm());
                if (op == EXIT) s.add("exit");
                int t = i.jumpTarget(pc);
                if (t >= 0 && t <= pc) s.add("back-edge");
            }
            case LDX -> s.add((mode(i.opcode()) == MEMSX ? "ldxs-" : "ldx-") + size[size(i.opcode()) >> 3]);
            case ST -> s.add("st-" + size[size(i.opcode()) >> 3]);
            case STX -> {
                if (mode(i.opcode()) == ATOMIC) {
                    s.add("atomic-" + size[size(i.opcode()) >> 3]);
                    String name = switch (i.imm()) {
                        case XCHG -> "xchg";
                        case CMPXCHG -> "cmpxchg";
                        default -> ((i.imm() & FETCH) != 0 ? "fetch-" : "") + switch (i.imm() & ~FETCH) {
                            case ADD -> "add"; case OR -> "or"; case AND -> "and"; case XOR -> "xor"; default -> "?"; };
                    };
                    s.add("atomic-" + name);
                } else {
                    s.add("stx-" + size[size(i.opcode()) >> 3]);
                }
            }
            case LD -> { if (i.isLddw()) s.add("lddw"); }
            default -> { }
        }
        return s;
    }

    @Test void frameEscapesAddTheIssue21ShapesOnlyWhenAsked() {
        // r10 + a positive offset (a pointer above the own frame) is written only with frame escapes on
        boolean plain = false, escapes = false;
        for (long seed = 0; seed < 300; seed++) {
            plain |= hasPointerAboveFrame(new GrammarGenerator().generate(seed).insns());
            escapes |= hasPointerAboveFrame(new GrammarGenerator(GrammarOptions.defaults().withFrameEscapes(true)).generate(seed).insns());
        }
        assertThat(plain).isFalse();
        assertThat(escapes).isTrue();
    }

    private static boolean hasPointerAboveFrame(List<Insn> p) {
        for (int pc = 0; pc + 1 < p.size(); pc++) {
            Insn mov = p.get(pc), add = p.get(pc + 1);
            if (mov.opcode() == (ALU64 | MOV | X) && mov.src() == 10 && add.opcode() == (ALU64 | ADD | K)
                    && add.dst() == mov.dst() && add.imm() > 0) return true;
        }
        return false;
    }
}
