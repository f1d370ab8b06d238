package dev.bpf4j.helpers;

import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.ProgArrayMap;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;

/**
 * {@code bpf_tail_call(ctx, prog_array, index)} as the kernel's {@code JMP_TAIL_CALL}: an index at or
 * past {@code max_entries} falls through without counting; otherwise the engine counts the tail call
 * and, unless the limit is reached or the slot is empty, replaces the running program
 * ({@link HelperCall#tailCall}). On a fall-through r0 = 0 (the kernel leaves it undefined).
 */
final class TailCallHelper {
    private TailCallHelper() {}

    static void register(HelperRegistry.Builder b, MapTable maps) {
        b.add(HelperIds.TAIL_CALL, "bpf_tail_call", (call, r1, r2, r3, r4, r5) -> {
            ProgArrayMap jmp = progArray(call, maps, r2);
            int index = (int) r3; // u32 index = BPF_R3
            if (Integer.toUnsignedLong(index) >= Integer.toUnsignedLong(jmp.maxEntries())) return 0;
            call.tailCall(jmp.program(index));
            return 0;
        });
    }

    private static ProgArrayMap progArray(HelperCall call, MapTable maps, long handle) {
        BpfMap m = maps.find(handle).orElseThrow(() -> call.badArgument(String.format(
                "bpf_tail_call: r2 = 0x%x is not a map of this program", handle)));
        if (!m.isOpen()) throw call.badArgument("bpf_tail_call: " + m.describe() + " is closed");
        if (!(m instanceof ProgArrayMap)) throw call.badArgument("bpf_tail_call needs a PROG_ARRAY map, got " + m.describe());
        return (ProgArrayMap) m;
    }
}
