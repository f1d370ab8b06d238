package dev.bpf4j.object;

import dev.bpf4j.maps.MapType;
import dev.bpf4j.btf.BtfType;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.program.Program;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Parses the committed fixtures and checks them against what {@code llvm-objdump-14 -dr},
 * {@code llvm-readelf-14 -S -s -r} and {@code bpftool btf dump file} print for the same objects.
 */
class BpfObjectSpecTest {
    private static final int CALL = Opcodes.JMP | Opcodes.CALL;

    @Test
    void severalProgramsPerSection() {
        BpfObjectSpec spec = Fixtures.spec("xdp_multi");
        assertThat(spec.name()).isEqualTo("xdp_multi");
        assertThat(spec.license()).isEqualTo("Dual BSD/GPL");
        assertThat(spec.programs()).extracting(ProgramSpec::name).containsExactly("xdp_pass", "xdp_drop_short", "tc_ingress");
        assertThat(spec.programs()).extracting(ProgramSpec::section).containsExactly("xdp", "xdp", "tc");
        assertThat(spec.programs()).extracting(ProgramSpec::type).containsExactly(ProgramType.XDP, ProgramType.XDP, ProgramType.SCHED_CLS);
        assertThat(spec.programs()).extracting(ProgramSpec::length).containsExactly(2, 7, 6);
        ProgramSpec drop = spec.program("xdp_drop_short");
        // llvm-objdump: xdp_drop_short starts with r2 = *(u32 *)(r1 + 4) and ends with exit
        assertThat(drop.program().insn(0)).isEqualTo(new Insn(0x61, 2, 1, 4, 0));
        assertThat(drop.program().insn(6).opcode()).isEqualTo(0x95);
        assertThat(drop.attachType()).isEqualTo(AttachType.XDP);
        assertThat(spec.maps()).isEmpty();
    }

    @Test
    void subprogramsAreAppendedAndCallsRelocated() {
        BpfObjectSpec spec = Fixtures.spec("subprog");
        assertThat(spec.programs()).extracting(ProgramSpec::name).containsExactly("sock_prog", "xdp_prog");

        ProgramSpec sock = spec.program("sock_prog");
        assertThat(sock.type()).isEqualTo(ProgramType.SOCKET_FILTER);
        // socket (3) + sum_squares (6) + square (3), depth-first in call order as libbpf appends them
        assertThat(sock.functions()).containsExactly(new FunctionSpec("sock_prog", "socket", 0, 3),
                new FunctionSpec("sum_squares", ".text", 3, 6), new FunctionSpec("square", ".text", 9, 3));
        Program p = sock.program();
        assertThat(p.length()).isEqualTo(12);
        assertCall(p, 1, 3);  // sock_prog -> sum_squares
        assertCall(p, 3, 9);  // sum_squares -> square (pc-relative within .text, no relocation)
        assertCall(p, 6, 9);
        assertThat(p.insn(11).opcode()).isEqualTo(0x95);

        ProgramSpec xdp = spec.program("xdp_prog");
        assertThat(xdp.functions()).extracting(FunctionSpec::name).containsExactly("xdp_prog", "square", "global_helper");
        assertThat(xdp.length()).isEqualTo(13 + 3 + 3);
        assertCall(xdp.program(), 2, 13);  // relocation against the .text section symbol, imm 8
        assertCall(xdp.program(), 5, 16);  // relocation against global_helper, imm -1
        // global_helper: r0 = r1; r0 += 7; exit
        assertThat(xdp.program().insn(17)).isEqualTo(new Insn(0x07, 0, 0, 0, 7));
        assertThat(xdp.mapReferences()).isEmpty();
    }

    private static void assertCall(Program p, int pc, int targetPc) {
        Insn call = p.insn(pc);
        assertThat(call.opcode()).as("opcode at %d", pc).isEqualTo(CALL);
        assertThat(call.src()).as("src at %d", pc).isEqualTo(Opcodes.PSEUDO_CALL);
        assertThat(pc + 1 + call.imm()).as("call target of pc %d", pc).isEqualTo(targetPc);
    }

    @Test
    void lineInfoFollowsAppendedSubprograms() {
        ProgramSpec xdp = Fixtures.spec("subprog").program("xdp_prog");
        assertThat(xdp.funcInfos()).extracting(f -> f.name() + "@" + f.insnIndex()).containsExactly("xdp_prog@0", "square@13", "global_helper@16");
        assertThat(xdp.lineAt(2).orElseThrow().line()).isEqualTo(30);
        assertThat(xdp.lineAt(14).orElseThrow().sourceLine()).isEqualTo("\treturn x * x;");
        assertThat(xdp.lineAt(17).orElseThrow().sourceLine()).isEqualTo("\treturn x + 7;");
        assertThat(xdp.functionAt(17).orElseThrow().name()).isEqualTo("global_helper");
        assertThat(xdp.describe(14)).isEqualTo("xdp_prog pc 14 (square+1, ./src/subprog.c:8:11: return x * x;)");
        assertThat(xdp.describe(2)).startsWith("xdp_prog pc 2 (./src/subprog.c:30:");
        assertThat(xdp.lineInfos()).isSortedAccordingTo((a, b) -> Integer.compare(a.insnIndex(), b.insnIndex()));
    }

    @Test
    void btfDefinedMaps() {
        BpfObjectSpec spec = Fixtures.spec("btf_maps");
        assertThat(spec.maps()).extracting(MapSpec::name)
                .containsExactly("inner_a", "outer", "counters", "percpu", "by_size", "lru", "events", "jumps");
        MapSpec counters = spec.map("counters");
        assertThat(counters.type()).isEqualTo(MapType.ARRAY);
        assertThat(counters.keySize()).isEqualTo(4);
        assertThat(counters.valueSize()).isEqualTo(16);
        assertThat(counters.maxEntries()).isEqualTo(4);
        assertThat(spec.btf().type(counters.keyTypeId()).name()).isEqualTo("__u32");
        assertThat(spec.btf().type(counters.valueTypeId()).name()).isEqualTo("value");
        MapSpec bySize = spec.map("by_size");
        assertThat(bySize).extracting(MapSpec::type, MapSpec::keySize, MapSpec::valueSize, MapSpec::maxEntries, MapSpec::flags)
                .containsExactly(MapType.HASH, 8, 4, 1024, MapSpec.BPF_F_NO_PREALLOC);
        assertThat(bySize.keyTypeId()).isZero();
        assertThat(spec.map("percpu").pinning()).isEqualTo(Pinning.BY_NAME);
        assertThat(spec.map("percpu").type()).isEqualTo(MapType.PERCPU_ARRAY);
        assertThat(spec.map("lru").type().id()).isEqualTo(9);
        assertThat(spec.map("events")).extracting(MapSpec::type, MapSpec::keySize, MapSpec::valueSize, MapSpec::maxEntries)
                .containsExactly(MapType.RINGBUF, 0, 0, 4096);
        assertThat(spec.map("jumps").type()).isEqualTo(MapType.PROG_ARRAY);
        MapSpec outer = spec.map("outer");
        assertThat(outer.type()).isEqualTo(MapType.ARRAY_OF_MAPS);
        assertThat(outer.valueSize()).isEqualTo(4);
        assertThat(outer.innerMap()).extracting(MapSpec::name, MapSpec::type, MapSpec::keySize, MapSpec::valueSize, MapSpec::maxEntries)
                .containsExactly("outer.inner", MapType.ARRAY, 4, 8, 2);
        assertThat(outer.initialSlots()).isEqualTo(Map.of(1, "inner_a"));
    }

    @Test
    void mapLoadsBecomePseudoMapFd() {
        ProgramSpec count = Fixtures.spec("btf_maps").program("count");
        assertThat(count.length()).isEqualTo(84);
        // llvm-objdump -dr: R_BPF_64_64 at insns 5, 22, 42, 52, 56, 69, 78
        assertThat(count.mapReferences()).extracting(MapReference::pc).containsExactly(5, 22, 42, 52, 56, 69, 78);
        assertThat(count.mapReferences()).extracting(MapReference::mapName)
                .containsExactly("counters", "percpu", "by_size", "lru", "events", "outer", "jumps");
        for (MapReference r : count.mapReferences()) {
            Insn lddw = count.program().insn(r.pc());
            assertThat(lddw.isLddw()).isTrue();
            assertThat(lddw.src()).isEqualTo(Opcodes.PSEUDO_MAP_FD);
            assertThat(r.kind()).isEqualTo(MapReference.Kind.MAP);
        }
        assertThat(count.program().insn(78).dst()).isEqualTo(2); // r2 = jumps ll
    }

    @Test
    void legacyMapsSectionAndVersion() {
        BpfObjectSpec spec = Fixtures.spec("legacy_maps");
        assertThat(spec.kernelVersion()).isEqualTo(0x050a00);
        assertThat(spec.maps()).containsExactly(
                new MapSpec("legacy_array", "maps", MapType.ARRAY, 4, 8, 16, 0, Pinning.NONE, 0, 0, 0, 0, null, Map.of(), null),
                new MapSpec("legacy_hash", "maps", MapType.HASH, 8, 4, 256, 1, Pinning.NONE, 0, 0, 0, 0, null, Map.of(), null));
        ProgramSpec prog = spec.program("legacy_prog");
        assertThat(prog.mapReferences()).containsExactly(
                new MapReference(5, MapReference.Kind.MAP, "legacy_array", 0, "legacy_array"),
                new MapReference(18, MapReference.Kind.MAP, "legacy_hash", 0, "legacy_hash"));
    }

    @Test
    void globalDataBecomesInternalArrayMaps() {
        BpfObjectSpec spec = Fixtures.spec("globals");
        assertThat(spec.maps()).extracting(MapSpec::name)
                .containsExactly("globals.data", "globals.rodata", ".data.custom", "globals.bss", "globals.kconfig");
        for (MapSpec m : spec.maps()) {
            assertThat(m.type()).isEqualTo(MapType.ARRAY);
            assertThat(m.maxEntries()).isEqualTo(1);
            assertThat(m.keySize()).isEqualTo(4);
            assertThat(m.isInternal()).isTrue();
            assertThat(m.contents()).hasSize(m.valueSize());
        }
        assertThat(le(spec.map("globals.data").contents()).getInt(0)).isEqualTo(42);
        MapSpec rodata = spec.map("globals.rodata");
        assertThat(rodata.isReadOnly()).isTrue();
        assertThat(rodata.flags()).isEqualTo(MapSpec.BPF_F_RDONLY_PROG | MapSpec.BPF_F_MMAPABLE);
        assertThat(le(rodata.contents()).getInt(0)).isEqualTo(1000);
        assertThat(le(rodata.contents()).getLong(8)).isEqualTo(3);
        assertThat(spec.map("globals.data").isReadOnly()).isFalse();
        assertThat(le(spec.map(".data.custom").contents()).getInt(0)).isEqualTo(7);
        assertThat(spec.map("globals.bss").contents()).isEqualTo(new byte[40]);
        assertThat(spec.map("globals.kconfig").valueSize()).isEqualTo(4);
        assertThat(spec.btf().type(rodata.valueTypeId()).name()).isEqualTo(".rodata");

        ProgramSpec prog = spec.program("use_globals");
        assertThat(prog.type()).isEqualTo(ProgramType.SYSCALL);
        assertThat(prog.sleepable()).isTrue();
        assertThat(prog.mapReferences()).containsExactly(
                new MapReference(0, MapReference.Kind.VALUE, ".data.custom", 0, "custom"),
                new MapReference(5, MapReference.Kind.VALUE, "globals.rodata", 0, "threshold"),
                new MapReference(8, MapReference.Kind.VALUE, "globals.rodata", 8, "scale"),
                new MapReference(12, MapReference.Kind.VALUE, "globals.bss", 0, "total"),
                new MapReference(16, MapReference.Kind.VALUE, "globals.kconfig", 0, "CONFIG_HZ"),
                new MapReference(23, MapReference.Kind.VALUE, "globals.data", 0, "counter"),
                new MapReference(30, MapReference.Kind.VALUE, "globals.bss", 8, "hits"));
        Program p = prog.program();
        assertThat(p.insn(8).src()).isEqualTo(Opcodes.PSEUDO_MAP_VALUE);
        assertThat(p.insn(9).imm()).isEqualTo(8); // second slot carries the offset
        assertThat(p.insn(30).src()).isEqualTo(Opcodes.PSEUDO_MAP_VALUE);
        assertThat(p.insn(31).imm()).isEqualTo(8);
    }

    @Test
    void datasecsAreFixedUpAndGlobalsEditable() {
        BpfObjectSpec spec = Fixtures.spec("globals");
        // bpftool btf dump shows size=0 and offset=0 for clang's output; libbpf fixes them up from the ELF
        BtfType.Datasec rodata = spec.btf().datasec(".rodata").orElseThrow();
        assertThat(rodata.size()).isEqualTo(16);
        assertThat(rodata.vars()).extracting(BtfType.VarSecinfo::offset).containsExactly(0L, 8L);
        assertThat(spec.btf().datasec(".bss").orElseThrow().vars()).extracting(BtfType.VarSecinfo::offset).containsExactly(0L, 8L);
        assertThat(spec.variables()).extracting(v -> v.name() + "@" + v.mapName() + "+" + v.offset() + ":" + v.size())
                .containsExactly("counter@globals.data+0:4", "threshold@globals.rodata+0:4", "scale@globals.rodata+8:8",
                        "custom@.data.custom+0:4", "total@globals.bss+0:8", "hits@globals.bss+8:32");
        assertThat(le(spec.variableValue("scale")).getLong(0)).isEqualTo(3);

        BpfObjectSpec tuned = spec.withVariable("threshold", 77).withVariable("scale", 5);
        assertThat(le(tuned.map("globals.rodata").contents()).getInt(0)).isEqualTo(77);
        assertThat(le(tuned.variableValue("scale")).getLong(0)).isEqualTo(5);
        assertThat(le(spec.variableValue("threshold")).getInt(0)).isEqualTo(1000); // the original is untouched
        assertThatThrownBy(() -> spec.withVariable("hits", 1)).hasMessageContaining("__u64[4] needs a List or an array, not Long 1");
        assertThatThrownBy(() -> spec.withVariable("threshold", 1L << 40)).hasMessageContaining("1099511627776 does not fit const volatile __u32");
        assertThatThrownBy(() -> spec.withVariable("counter", new byte[3])).hasMessageContaining("is 4 bytes");
        assertThatThrownBy(() -> spec.variable("CONFIG_HZ")).hasMessageContaining("no global variable 'CONFIG_HZ'");
    }

    private static ByteBuffer le(byte[] b) { return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN); }

    @Test
    void tracingSectionNames() {
        BpfObjectSpec spec = Fixtures.spec("tracing");
        assertThat(spec.program("on_unlink")).extracting(ProgramSpec::type, ProgramSpec::attachTarget).containsExactly(ProgramType.KPROBE, "do_unlinkat");
        assertThat(spec.program("on_unlink_ret").type()).isEqualTo(ProgramType.KPROBE);
        assertThat(spec.program("on_readline")).extracting(ProgramSpec::type, ProgramSpec::attachTarget).containsExactly(ProgramType.KPROBE, "/bin/bash:readline");
        assertThat(spec.program("on_openat")).extracting(ProgramSpec::type, ProgramSpec::attachTarget).containsExactly(ProgramType.TRACEPOINT, "syscalls/sys_enter_openat");
        assertThat(spec.program("on_switch").type()).isEqualTo(ProgramType.TRACEPOINT);
        assertThat(spec.program("on_raw").type()).isEqualTo(ProgramType.RAW_TRACEPOINT);
        assertThat(spec.program("on_raw_exit").type()).isEqualTo(ProgramType.RAW_TRACEPOINT);
        assertThat(spec.program("on_sample").type()).isEqualTo(ProgramType.PERF_EVENT);
        assertThat(spec.program("on_fentry")).extracting(ProgramSpec::type, ProgramSpec::attachType).containsExactly(ProgramType.TRACING, AttachType.TRACE_FENTRY);
        assertThat(spec.program("on_fexit").attachType()).isEqualTo(AttachType.TRACE_FEXIT);
        assertThat(spec.program("old_tc").type()).isEqualTo(ProgramType.SCHED_CLS);
        assertThat(spec.program("on_cgroup")).extracting(ProgramSpec::type, ProgramSpec::attachType).containsExactly(ProgramType.CGROUP_SKB, AttachType.CGROUP_INET_INGRESS);
        assertThat(spec.programs()).allSatisfy(p -> assertThat(p.length()).isEqualTo(2));
    }

    @Test
    void specsAreImmutableAndEditableByCopy() {
        BpfObjectSpec spec = Fixtures.spec("btf_maps");
        MapSpec bigger = spec.map("lru").withMaxEntries(4096);
        BpfObjectSpec edited = spec.withMap(bigger);
        assertThat(edited.map("lru").maxEntries()).isEqualTo(4096);
        assertThat(spec.map("lru").maxEntries()).isEqualTo(128);
        assertThatThrownBy(() -> spec.maps().add(bigger)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> spec.withMap(bigger.withName("nope"))).hasMessageContaining("has no map 'nope'");

        MapSpec data = Fixtures.spec("globals").map("globals.data");
        byte[] contents = data.contents();
        contents[0] = 99;
        assertThat(data.contents()[0]).isEqualTo((byte) 42);
        assertThat(data.withContents(new byte[12]).valueSize()).isEqualTo(12);
        assertThat(spec.program("count").withType(ProgramType.SCHED_CLS).type()).isEqualTo(ProgramType.SCHED_CLS);
    }

    @Test
    void callbackAddressesStringsAndProgArraySlots() {
        BpfObjectSpec spec = Fixtures.spec("callbacks");
        // tail_target and loop_sum share section "tc"; loop_sum starts at insn 2 of it
        assertThat(spec.programs()).extracting(ProgramSpec::name).containsExactly("tail_target", "loop_sum");
        ProgramSpec loop = spec.program("loop_sum");
        assertThat(loop.functions()).containsExactly(new FunctionSpec("loop_sum", "tc", 0, 26), new FunctionSpec("add_index", ".text", 26, 7));
        Insn callback = loop.program().insn(6); // r2 = add_index ll, R_BPF_64_64 against .text
        assertThat(callback.src()).isEqualTo(Opcodes.PSEUDO_FUNC);
        assertThat(6 + 1 + callback.imm()).isEqualTo(26);
        assertThat(loop.mapReferences()).containsExactly(
                new MapReference(11, MapReference.Kind.VALUE, ".rodata.str1.1", 0, ".rodata.str1.1"),
                new MapReference(16, MapReference.Kind.MAP, "programs", 0, "programs"));
        MapSpec str = spec.map(".rodata.str1.1");
        assertThat(new String(str.contents())).isEqualTo("sum is %llu\0");
        assertThat(str.flags()).isEqualTo(MapSpec.BPF_F_RDONLY_PROG); // no DATASEC: not mmapable, as in libbpf
        MapSpec programs = spec.map("programs");
        assertThat(programs.type()).isEqualTo(MapType.PROG_ARRAY);
        assertThat(programs.initialSlots()).isEqualTo(Map.of(2, "tail_target"));
    }

    @Test
    void subprogramUsingMapsIsCopiedIntoEachCaller() {
        BpfObjectSpec spec = Fixtures.spec("shared_subprog");
        assertThat(spec.map("shared_s.bss").valueSize()).isEqualTo(8);
        // record (28 insns in .text) has R_BPF_64_64 at its insns 0 (calls), 10 and 22 (seen)
        ProgramSpec xdp = spec.program("record_xdp");
        assertThat(xdp.functions()).containsExactly(new FunctionSpec("record_xdp", "xdp", 0, 9), new FunctionSpec("record", ".text", 9, 28));
        assertCall(xdp.program(), 1, 9);
        assertThat(xdp.mapReferences()).containsExactly(
                new MapReference(9, MapReference.Kind.VALUE, "shared_s.bss", 0, "calls"),
                new MapReference(19, MapReference.Kind.MAP, "seen", 0, "seen"),
                new MapReference(31, MapReference.Kind.MAP, "seen", 0, "seen"));
        assertThat(xdp.autoload()).isTrue();

        ProgramSpec tc = spec.program("record_tc");
        assertThat(tc.section()).isEqualTo("?tc");
        assertThat(tc.autoload()).isFalse();
        assertThat(tc.type()).isEqualTo(ProgramType.SCHED_CLS);
        assertThat(tc.functions()).extracting(FunctionSpec::pc).containsExactly(0, 15);
        assertCall(tc.program(), 2, 15);
        assertCall(tc.program(), 5, 15);
        assertThat(tc.mapReferences()).extracting(MapReference::pc).containsExactly(15, 25, 37);
        assertThat(tc.program().insn(25).src()).isEqualTo(Opcodes.PSEUDO_MAP_FD);
        assertThat(tc.program().insn(15).src()).isEqualTo(Opcodes.PSEUDO_MAP_VALUE);
        assertThat(tc.lineAt(16).orElseThrow().sourceLine()).isEqualTo("\tcalls++;");
        // the .text original is untouched by linking: both copies were patched independently
        assertThat(xdp.program().insn(19)).isEqualTo(tc.program().insn(25));
    }

    @Test
    void coreRelocationsAreKeptPerProgram() {
        BpfObjectSpec spec = Fixtures.spec("core_reloc");
        ProgramSpec prog = spec.program("core_prog");
        assertThat(prog.type()).isEqualTo(ProgramType.KPROBE);
        // llvm-objdump: r1 = 8 (parent offset) at 1, r1 = 4 (tgid offset) at 8, r1 = 1 (exists) at 17, r0 = 16 (size) at 20
        assertThat(prog.coreRelocations()).extracting(r -> r.insnIndex() + " " + r.kind() + " " + r.accessString())
                .containsExactly("1 FIELD_BYTE_OFFSET 0:2", "8 FIELD_BYTE_OFFSET 0:1", "17 FIELD_EXISTS 0:2", "20 TYPE_SIZE 0");
        assertThat(prog.coreRelocations()).allSatisfy(r -> assertThat(spec.btf().type(r.typeId()).name()).isEqualTo("task_struct"));
        assertThat(Fixtures.spec("subprog").program("xdp_prog").coreRelocations()).isEmpty();
    }

    @Test
    void unknownProgramNameListsWhatExists() {
        assertThatThrownBy(() -> Fixtures.spec("xdp_multi").program("nope"))
                .hasMessage("object 'xdp_multi' has no program 'nope' (programs: xdp_pass, xdp_drop_short, tc_ingress)");
    }
}
