package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.LookupInlining;

/**
 * {@code bpf_map_lookup_elem} on an ARRAY or PERCPU_ARRAY map whose handle is a constant at the call site, inlined
 * as the kernel's {@code array_map_gen_lookup} does: {@code index < max_entries ? base + index *
 * stride : NULL}, with no call (a Java helper call costs ≈95 ns through JNI). The
 * guards and the fallback to the helper are {@link InlineLookup}'s.
 *
 * <pre>
 *   (guards: map open, key in the frame, else .call)
 *   mov eax, [rsi]                      ; u32 index
 *   cmp eax, max_entries; jae .null
 *   (rax = values + (index * cpus + cpu) * stride)
 *   jmp .done
 * .null: xor eax, eax; jmp .done
 * .call: the helper call
 * .done:
 * </pre>
 */
final class InlineArrayLookup {
    private InlineArrayLookup() {}

    /** {@code -Dbpf4j.jit.inlineArrayLookup=false} calls the helper everywhere (read at each compile, for A/B timing). */
    static boolean enabled() { return Switches.on("bpf4j.jit.inlineArrayLookup"); }

    static void emit(JitContext c, int pc, LookupInlining.Elements array, HelperBinding b) {
        X86Encoder e = c.e;
        X86Reg r0 = RegMap.x86(0), key = RegMap.x86(2);
        int[] toCall = InlineLookup.guards(e, array);
        e.load(false, r0, Mem.of(key, 0));                                     /* mov eax, [rsi] */
        e.aluRI(AluOp.CMP, false, r0, array.maxEntries());                     /* cmp eax, max_entries */
        int missing = e.jccForward32(Cond.AE);                                 /* jae .null */
        InlineLookup.valueOfSlot(e, array, null);
        int found = e.jmpForward32();                                          /* jmp .done */
        e.bind32(missing);                                                     /* .null: */
        e.aluRR(AluOp.XOR, false, r0, r0);                                     /* xor eax, eax */
        int none = e.jmpForward32();                                           /* jmp .done */
        InlineLookup.callAndJoin(c, pc, b, toCall, found, none);
    }
}
