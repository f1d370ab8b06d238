package dev.bpf4j.api;

import dev.bpf4j.isa.Insn;
import dev.bpf4j.isa.Opcodes;
import dev.bpf4j.maps.ArrayMap;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.object.MapReference;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.maps.MapType;

import java.util.Arrays;

/**
 * Resolves a program's map references as the kernel's verifier does when it replaces map fds by
 * {@code struct bpf_map *} ({@code resolve_pseudo_ldimm64}): each {@code lddw} becomes a plain 64-bit
 * immediate (src 0), either the map's {@link MapTable} handle ({@code BPF_PSEUDO_MAP_FD}) or the
 * address of byte {@code offset} of the array's value ({@code BPF_PSEUDO_MAP_VALUE}, global data).
 */
final class MapRelocator {
    private MapRelocator() {}

    static Program relocate(ProgramSpec spec, MapTable maps) {
        Insn[] insns = spec.program().toArray();
        for (MapReference ref : spec.mapReferences()) {
            int pc = ref.pc();
            if (pc < 0 || pc + 1 >= insns.length || !insns[pc].isLddw()) {
                throw new BpfLoadException(where(spec, pc) + ": map reference to '" + ref.mapName() + "' is not on an lddw");
            }
            BpfMap map = maps.map(ref.mapName()).orElseThrow(() -> new BpfLoadException(where(spec, pc)
                    + ": refers to map '" + ref.mapName() + "', which was not created"));
            long value;
            if (ref.kind() == MapReference.Kind.MAP) {
                value = maps.handle(map);
            } else {
                if (!(map instanceof ArrayMap array) || map.type() != MapType.ARRAY) {
                    throw new BpfLoadException(where(spec, pc) + ": a map value address (BPF_PSEUDO_MAP_VALUE) needs an ARRAY map, '"
                            + ref.mapName() + "' is " + map.type());
                }
                long offset = insns[pc + 1].imm() & 0xffffffffL;
                if (offset >= Integer.toUnsignedLong(map.valueSize())) {
                    throw new BpfLoadException(where(spec, pc) + ": offset " + offset + " is past the " + map.valueSize()
                            + "-byte value of map '" + ref.mapName() + "'");
                }
                value = array.valuesBase() + offset;
            }
            Insn lo = insns[pc], hi = insns[pc + 1];
            insns[pc] = new Insn(Opcodes.LDDW, lo.dst(), Opcodes.PSEUDO_IMM64, lo.off(), (int) value);
            insns[pc + 1] = new Insn(hi.opcode(), hi.dst(), hi.src(), hi.off(), (int) (value >>> 32));
        }
        return new Program(spec.name(), Arrays.asList(insns));
    }

    private static String where(ProgramSpec spec, int pc) { return "load program " + spec.describe(pc); }
}
