package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapFlags;
import dev.bpf4j.runtime.LookupInlining;

/**
 * {@code bpf_map_update_elem} on an ARRAY or PERCPU_ARRAY map whose handle is a constant at the call site, inlined
 * as {@code array_map_update_elem} runs it: the value copied into the slot of the key's index, or
 * {@code -E2BIG} for an index past the end, with no call (a Java helper call costs ≈66 ns through
 * JNI). Only the common case is inlined: flags {@code BPF_ANY} or {@code BPF_EXIST}, key and value
 * inside the current frame (which the helper's argument checks accept), a map that is open and whose
 * values hold no {@code bpf_spin_lock} ({@link LookupInlining.Elements#updatable}); in a per-CPU
 * array, this CPU's value, as the helper writes.
 * Anything else calls the helper, which checks, refuses or updates, so r0, errors and memory stay the
 * helper's (the interpreter inlines the same calls in Java, bpf-interp {@code MapHelperInlining}).
 *
 * <pre>
 *   (guards: map open, key in the frame, value in the frame, flags 0 or 2, else .call)
 *   mov eax, [rsi]                      ; u32 index
 *   cmp eax, max_entries; jae .e2big
 *   (rax = values + (index * cpus + cpu) * stride; rdx kept across the cpu's libc call)
 *   (value_size bytes from [rdx] to [rax], 8 at a time, through r10)
 *   xor eax, eax; jmp .done
 * .e2big: mov rax, -E2BIG; jmp .done
 * .call: the helper call
 * .done:
 * </pre>
 */
final class InlineArrayUpdate {
    private InlineArrayUpdate() {}

    /** Values up to this size are copied inline (a value in the frame is at most 512 bytes; this keeps call sites small). */
    static final int MAX_VALUE_SIZE = 256;

    /** {@code -Dbpf4j.jit.inlineArrayUpdate=false} calls the helper everywhere (read at each compile, for A/B timing). */
    static boolean enabled() { return Switches.on("bpf4j.jit.inlineArrayUpdate"); }

    /** Emits the inline update for {@code t} and returns true, or emits nothing and returns false (then the caller calls). */
    static boolean emit(JitContext c, int pc, LookupInlining.Target t, HelperBinding b) {
        if (!(t instanceof LookupInlining.Elements array) || !array.updatable() || array.valueSize() > MAX_VALUE_SIZE
                || !enabled()) return false;
        X86Encoder e = c.e;
        X86Reg r0 = RegMap.x86(0), key = RegMap.x86(2), value = RegMap.x86(3), flags = RegMap.x86(4);
        int[] keyGuards = InlineLookup.guards(e, array);
        int[] valueGuards = InlineLookup.inFrame(e, value, array.valueSize());
        e.testRI(true, flags, (int) ~MapFlags.BPF_EXIST);                      /* test rcx, ~BPF_EXIST */
        int otherFlags = e.jccForward32(Cond.NE);                              /* jne .call (BPF_NOEXIST, BPF_F_LOCK, unknown) */
        e.load(false, r0, Mem.of(key, 0));                                     /* mov eax, [rsi] */
        e.aluRI(AluOp.CMP, false, r0, array.maxEntries());                     /* cmp eax, max_entries */
        int past = e.jccForward32(Cond.AE);                                    /* jae .e2big */
        InlineLookup.valueOfSlot(e, array, value); // a per-CPU array's: this CPU's, as the helper writes
        copy(e, value, r0, array.valueSize());
        e.aluRR(AluOp.XOR, false, r0, r0);                                     /* xor eax, eax */
        int updated = e.jmpForward32();                                        /* jmp .done */
        e.bind32(past);                                                        /* .e2big: */
        e.movImmSx(r0, -Errno.E2BIG);                                          /* mov rax, -E2BIG */
        int refused = e.jmpForward32();                                        /* jmp .done */
        int[] toCall = {keyGuards[0], keyGuards[1], keyGuards[2], valueGuards[0], valueGuards[1], otherFlags};
        InlineLookup.callAndJoin(c, pc, b, toCall, updated, refused);
        return true;
    }

    /** {@code size} bytes from [from] to [to], the widest moves first, through r10. */
    private static void copy(X86Encoder e, X86Reg from, X86Reg to, int size) {
        int off = 0;
        for (int width = 8; width >= 1; width /= 2) {
            for (; size - off >= width; off += width) {
                MemoryEmitter.load(e, false, width, RegMap.AUX, Mem.of(from, off)); /* mov r10, [rdx + off] (width bytes) */
                e.store(width, Mem.of(to, off), RegMap.AUX);                       /* mov [rax + off], r10 */
            }
        }
    }
}
