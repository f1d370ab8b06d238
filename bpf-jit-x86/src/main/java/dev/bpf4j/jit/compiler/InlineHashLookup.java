package dev.bpf4j.jit.compiler;

import dev.bpf4j.jit.HelperBinding;
import dev.bpf4j.jit.x86.AluOp;
import dev.bpf4j.jit.x86.Cond;
import dev.bpf4j.jit.x86.Mem;
import dev.bpf4j.jit.x86.X86Reg;
import dev.bpf4j.jit.x86.Shift;
import dev.bpf4j.jit.x86.X86Encoder;
import dev.bpf4j.runtime.KeyHash;
import dev.bpf4j.runtime.LookupInlining;

/**
 * {@code bpf_map_lookup_elem} on a hash map (HASH, PERCPU_HASH and their LRU kinds) whose handle is a
 * constant at the call site, inlined as the kernel's {@code htab_map_gen_lookup} (which calls {@code
 * __htab_map_lookup_elem} without a helper frame): hash the key ({@link KeyHash}, unrolled for this
 * key size), walk the bucket's chain without a lock as {@link LookupInlining.HashBuckets} allows,
 * compare hashes and then the key in 8- or 4-byte words (the last word overlapping the one before).
 * A chain that ends at another bucket's marker (the slot was deleted and reused while we stood on
 * it) is walked again from its head; a walk longer than the map could make goes to the helper,
 * which takes the bucket lock. The guards and the fallback are {@link InlineLookup}'s.
 *
 * <pre>
 *   (guards: map open, key in the frame, else .call)
 *   eax = hash of [rsi, rsi + key_size); mov r11d, eax
 *   mov r8d, steps; movabs r10, index
 * .restart: edx = heads[r11d &amp; mask]
 * .walk: test edx, edx; js .end
 *   sub r8d, 1; je .call
 *   cmp r11d, hashes[edx]; jne .next
 *   rax = &amp;keys[edx]; compare [rax], [rsi] word by word; jne .next
 *   jmp .found
 * .next: edx = next[edx]; jmp .walk
 * .end: not edx; cmp edx, r11d &amp; mask; jne .restart
 *   xor eax, eax; jmp .done
 * .found: (LRU: mov byte ref[edx], 1); mov eax, edx; (rax = values + (slot * cpus + cpu) * stride); jmp .done
 * .call: the helper call
 * .done:
 * </pre>
 * Registers: r1 (rdi) and r2 (rsi) stay as the program set them, for the helper call; rax, rcx, rdx,
 * r8, r10 and r11 are free at a call (r3-r5 are clobbered by any helper call).
 */
final class InlineHashLookup {
    private InlineHashLookup() {}

    /** Keys longer than this are not inlined (the compare is unrolled). */
    static final int MAX_KEY_SIZE = 64;

    /** {@code -Dbpf4j.jit.inlineHashLookup=false} calls the helper everywhere (read at each compile, for A/B timing). */
    static boolean enabled() { return Switches.on("bpf4j.jit.inlineHashLookup"); }

    /** Keys of 4 to 64 bytes: shorter keys cannot be compared in 4-byte words. */
    static boolean fits(LookupInlining.HashBuckets h) { return h.keySize() >= 4 && h.keySize() <= MAX_KEY_SIZE; }

    static void emit(JitContext c, int pc, LookupInlining.HashBuckets h, HelperBinding b) {
        X86Encoder e = c.e;
        X86Reg key = RegMap.x86(2), hash = RegMap.AUX2, steps = X86Reg.R8, index = RegMap.AUX;
        int[] guards = InlineLookup.guards(e, h);
        hashKey(e, key, h.keySize());
        e.movRR(false, hash, X86Reg.RAX);                                         /* mov r11d, eax */
        e.movImm32(steps, 2 * h.maxEntries() + 8);                            /* mov r8d, steps */
        e.movabs(index, h.indexBase());                                        /* movabs r10, index */
        int restart = e.position();                                            /* .restart: */
        e.movRR(false, X86Reg.RDX, hash);                                         /* mov edx, r11d */
        e.aluRI(AluOp.AND, false, X86Reg.RDX, h.buckets() - 1);                   /* and edx, mask */
        wordOf(e, X86Reg.RDX, X86Reg.RDX, index, 0);                                 /* mov edx, heads[edx] */
        int walk = e.position();                                               /* .walk: */
        e.testRR(false, X86Reg.RDX, X86Reg.RDX);                                     /* test edx, edx */
        int end = e.jccForward32(Cond.S);                                      /* js .end */
        e.aluRI(AluOp.SUB, false, steps, 1);                                   /* sub r8d, 1 */
        int tooLong = e.jccForward32(Cond.E);                                  /* je .call */
        slotWord(e, X86Reg.RCX, X86Reg.RDX, index);                                  /* rcx = index + 4 * edx */
        e.aluRM(AluOp.CMP, false, hash, Mem.of(X86Reg.RCX, h.hashesOffset()));    /* cmp r11d, hashes[edx] */
        int[] offsets = chunks(h.keySize()), next = new int[1 + offsets.length];
        next[0] = e.jccForward32(Cond.NE);                                     /* jne .next */
        e.imulRRI(false, X86Reg.RAX, X86Reg.RDX, h.keySize());                       /* imul eax, edx, key_size */
        e.aluRR(AluOp.ADD, true, X86Reg.RAX, index);                              /* add rax, r10 */
        boolean wide = h.keySize() >= 8;
        for (int i = 0; i < offsets.length; i++) {
            e.load(wide, X86Reg.RCX, Mem.of(X86Reg.RAX, h.keysOffset() + offsets[i])); /* mov rcx, [rax + keys + off] */
            e.aluRM(AluOp.CMP, wide, X86Reg.RCX, Mem.of(key, offsets[i]));        /* cmp rcx, [rsi + off] */
            next[i + 1] = e.jccForward32(Cond.NE);                             /* jne .next */
        }
        int found = e.jmpForward32();                                          /* jmp .found */
        for (int j : next) e.bind32(j);                                        /* .next: */
        wordOf(e, X86Reg.RDX, X86Reg.RDX, index, h.nextOffset());                    /* mov edx, next[edx] */
        e.jmpTo(walk);                                                         /* jmp .walk */
        e.bind32(end);                                                         /* .end: */
        e.aluRI(AluOp.XOR, false, X86Reg.RDX, -1);                                /* not edx (the bucket of this marker) */
        e.movRR(false, X86Reg.RCX, hash);                                         /* mov ecx, r11d */
        e.aluRI(AluOp.AND, false, X86Reg.RCX, h.buckets() - 1);                   /* and ecx, mask */
        e.aluRR(AluOp.CMP, false, X86Reg.RDX, X86Reg.RCX);                           /* cmp edx, ecx */
        e.jccRel32(Cond.NE, restart);                                         /* jne .restart (another bucket's chain) */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, X86Reg.RAX);                           /* xor eax, eax */
        int none = e.jmpForward32();                                           /* jmp .done */
        e.bind32(found);                                                       /* .found: */
        if (h.refBits() != 0) {                                                /* LRU: bpf_lru_node_set_ref */
            e.movabs(X86Reg.RCX, h.refBits());                                    /* movabs rcx, ref bytes */
            e.aluRR(AluOp.ADD, true, X86Reg.RCX, X86Reg.RDX);                        /* add rcx, rdx (the slot, zero-extended) */
            e.storeImm(1, Mem.of(X86Reg.RCX, 0), 1);                              /* mov byte [rcx], 1 */
        }
        e.movRR(false, X86Reg.RAX, X86Reg.RDX);                                      /* mov eax, edx */
        InlineLookup.valueOfSlot(e, h, null);
        int value = e.jmpForward32();                                          /* jmp .done */
        int[] toCall = {guards[0], guards[1], guards[2], tooLong};
        InlineLookup.callAndJoin(c, pc, b, toCall, none, value);
    }

    /** eax = {@link KeyHash} of the {@code size} bytes at {@code key}. Clobbers edx. */
    private static void hashKey(X86Encoder e, X86Reg key, int size) { hashKey(e, key, size, X86Reg.RDX); }

    /** eax = {@link KeyHash} of the {@code size} bytes at {@code key}. Clobbers {@code t}. */
    static void hashKey(X86Encoder e, X86Reg key, int size, X86Reg t) {
        e.movImm32(X86Reg.RAX, KeyHash.SEED);                                     /* mov eax, SEED */
        int i = 0;
        for (; i + 4 <= size; i += 4) {
            e.aluRM(AluOp.XOR, false, X86Reg.RAX, Mem.of(key, i));                /* xor eax, [rsi + i] */
            mix(e, t);
        }
        for (; i < size; i++) {
            e.loadZx8(t, Mem.of(key, i));                                      /* movzx t, byte [rsi + i] */
            e.aluRR(AluOp.XOR, false, X86Reg.RAX, t);                          /* xor eax, t */
            mix(e, t);
        }
        xorShiftRight(e, 13, t);                                               /* h ^= h >>> 13 */
        e.imulRRI(false, X86Reg.RAX, X86Reg.RAX, KeyHash.FINISH);                    /* imul eax, eax, FINISH */
        xorShiftRight(e, 16, t);                                               /* h ^= h >>> 16 */
    }

    private static void mix(X86Encoder e, X86Reg t) {
        e.imulRRI(false, X86Reg.RAX, X86Reg.RAX, KeyHash.MIX);                       /* imul eax, eax, MIX */
        xorShiftRight(e, 15, t);                                               /* h ^= h >>> 15 */
    }

    private static void xorShiftRight(X86Encoder e, int n, X86Reg t) {
        e.movRR(false, t, X86Reg.RAX);                                         /* mov t, eax */
        e.shiftImm(Shift.SHR, false, t, n);                                    /* shr t, n */
        e.aluRR(AluOp.XOR, false, X86Reg.RAX, t);                              /* xor eax, t */
    }

    /** dst = the 32-bit word {@code offset + 4 * slot} bytes into the index. Clobbers dst only (slot may be dst). */
    private static void wordOf(X86Encoder e, X86Reg dst, X86Reg slot, X86Reg index, int offset) {
        slotWord(e, dst, slot, index);
        e.load(false, dst, Mem.of(dst, offset));                               /* mov dst, [dst + offset] */
    }

    /** dst = index + 4 * slot (slot a u32 below 2^29: the layout fits 32 bits). */
    private static void slotWord(X86Encoder e, X86Reg dst, X86Reg slot, X86Reg index) {
        e.movRR(false, dst, slot);                                             /* mov dst32, slot32 */
        e.shiftImm(Shift.SHL, true, dst, 2);                                   /* shl dst, 2 */
        e.aluRR(AluOp.ADD, true, dst, index);                                  /* add dst, r10 */
    }

    /** Offsets of the words that compare a key: 8-byte words when it has 8 bytes or more, else 4; the last word ends at the key's end. */
    static int[] chunks(int keySize) {
        int w = keySize >= 8 ? 8 : 4;
        int n = (keySize + w - 1) / w;
        int[] out = new int[n];
        for (int i = 0; i < n; i++) out[i] = Math.min(i * w, keySize - w);
        return out;
    }
}
