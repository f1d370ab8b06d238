package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.maps.RingBufMap;
import dev.bpf4j.runtime.NativeForm;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@code bpf_ringbuf_submit} / {@code _discard} call site that calls {@link RingBufCommitEmitter}'s code
 * before the Java body. r1 is a sample pointer, not a constant, so the call site compares its header's
 * address with the data area of each open ring of the load (at most {@link #MAX_RINGS}; the body tries the
 * same rings, and at most one area holds it), tests that ring's open word and puts its block in r3. The
 * native code answers 0 when it committed; anything else (no ring, a closed one, a header that fails its
 * checks) calls the body, which refuses the pointer with its own error at this pc.
 *
 * <pre>
 *   for each ring: lea r10, [rdi - 8]; movabs r11, data; sub r10, r11; cmp r10, capacity; jae .next
 *                  movabs rdx, ring block; movabs r10, open word; jmp .found
 *   .next: ...     jmp .call
 * .found: cmp qword [r10], 0; je .call
 *   call native; test rax, rax; je .done   (r1, r2 kept by the native code)
 * .call: call the Java body
 * .done:
 * </pre>
 */
final class InlineRingBufCommit {
    private InlineRingBufCommit() {}

    /** More rings than this: every call site calls the body (the compares would cost more than they save). */
    static final int MAX_RINGS = 4;

    static boolean emit(JitContext c, int pc, HelperBinding b, NativeForm.RingBufCommit form) {
        List<NativeForm.RingBufOutput.RingBlock> rings = form.rings().get();
        if (rings.isEmpty() || rings.size() > MAX_RINGS) return false;
        X86Encoder e = c.e;
        List<Integer> found = new ArrayList<>();
        for (NativeForm.RingBufOutput.RingBlock ring : rings) {
            e.lea(RegMap.AUX, Mem.of(RegMap.x86(1), -RingBufMap.HDR_SZ));          /* lea r10, [rdi - 8] (header) */
            e.movabs(RegMap.AUX2, ring.data());                                   /* movabs r11, data */
            e.aluRR(AluOp.SUB, true, RegMap.AUX, RegMap.AUX2);                    /* sub r10, r11 */
            e.aluRI(AluOp.CMP, true, RegMap.AUX, (int) ring.capacity());          /* cmp r10, capacity */
            int next = e.jccForward32(Cond.AE);                                   /* jae .next (unsigned: below the data too) */
            e.movabs(RegMap.x86(3), ring.base());                                 /* movabs rdx, ring block */
            e.movabs(RegMap.AUX, ring.openWord());                                /* movabs r10, open word */
            found.add(e.jmpForward32());                                          /* jmp .found */
            e.bind32(next);                                                       /* .next: */
        }
        int none = e.jmpForward32();                                              /* jmp .call (in no ring) */
        for (int j : found) e.bind32(j);                                          /* .found: */
        e.aluMI(AluOp.CMP, true, Mem.of(RegMap.AUX, 0), 0);                       /* cmp qword [r10], 0 */
        int closed = e.jccForward32(Cond.E);                                      /* je .call (the map was closed) */
        HelperBinding.FastPath fast = b.fastPath();
        CallEmitter.call(c, pc, HelperBinding.nativeCode(b.id(), b.name(), fast.address(), fast.keepAlive()));
        e.testRR(true, X86Reg.RAX, X86Reg.RAX);                                   /* test rax, rax */
        int done = e.jccForward32(Cond.E);                                        /* je .done (committed) */
        InlineLookup.callAndJoin(c, pc, b, new int[] {none, closed}, done);
        return true;
    }
}
