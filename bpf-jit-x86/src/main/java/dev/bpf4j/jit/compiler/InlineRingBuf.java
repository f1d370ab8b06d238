package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.NativeForm;

import java.util.function.LongFunction;

/**
 * The ring buffer helpers' call sites that call native code instead of the Java body: {@code bpf_ringbuf_output}
 * ({@link InlineRingBufOutput}), {@code _submit} / {@code _discard} ({@link InlineRingBufCommit}), and here
 * {@code _reserve} ({@link RingBufReserveEmitter}) and {@code _query} ({@link RingBufQueryEmitter}), whose r1
 * is a constant handle ({@code CallSiteConstants}) of a ring buffer of the load: at each call its open word
 * is tested, then r1 becomes the ring's block. A closed ring, or a call site whose r1 is not known, calls the
 * body, which checks and refuses as the interpreter's does.
 *
 * <pre>
 *   movabs r10, open word; cmp qword [r10], 0; je .call
 *   movabs rdi, ring block; call native; jmp .done
 * .call: call the Java body
 * .done:
 * </pre>
 */
final class InlineRingBuf {
    private InlineRingBuf() {}

    /** Emits a ring buffer helper's guarded native call and the body's call and returns true, or emits nothing and returns false. */
    static boolean emit(JitContext c, int pc, HelperBinding b) {
        HelperBinding.FastPath fast = b.fastPath();
        if (fast == null) return false;
        NativeForm form = fast.form();
        if (form instanceof NativeForm.RingBufOutput) return InlineRingBufOutput.emit(c, pc, b);
        if (form instanceof NativeForm.RingBufCommit commit) return InlineRingBufCommit.emit(c, pc, b, commit);
        if (form instanceof NativeForm.RingBufReserve reserve) return constantRing(c, pc, b, reserve.rings());
        if (form instanceof NativeForm.RingBufQuery query) return constantRing(c, pc, b, query.rings());
        return false;
    }

    private static boolean constantRing(JitContext c, int pc, HelperBinding b, LongFunction<NativeForm.RingBufOutput.RingBlock> rings) {
        if (!c.callR1.knows(pc)) return false;
        NativeForm.RingBufOutput.RingBlock ring = rings.apply(c.callR1.r1(pc));
        if (ring == null) return false;
        X86Encoder e = c.e;
        e.movabs(RegMap.AUX, ring.openWord());                                    /* movabs r10, open word */
        e.aluMI(AluOp.CMP, true, Mem.of(RegMap.AUX, 0), 0);                       /* cmp qword [r10], 0 */
        int closed = e.jccForward32(Cond.E);                                      /* je .call (the map was closed) */
        e.movabs(RegMap.x86(1), ring.base());                                     /* movabs rdi, ring block */
        HelperBinding.FastPath fast = b.fastPath();
        CallEmitter.call(c, pc, HelperBinding.nativeCode(b.id(), b.name(), fast.address(), fast.keepAlive()));
        int done = e.jmpForward32();                                              /* jmp .done */
        InlineLookup.callAndJoin(c, pc, b, new int[] {closed}, done);
        return true;
    }
}
