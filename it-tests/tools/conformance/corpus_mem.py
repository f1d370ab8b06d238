"""Memory cases: ldx/st/stx in every size on the memory block and the stack, sign-extending
loads, atomics with and without fetch, lddw."""
from corpus import case, h, imm, M64

MEM = bytes([0x01, 0x82, 0x03, 0x84, 0x05, 0x86, 0x07, 0x88, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff, 0x80])
MEMTXT = MEM


def le(b):
    return int.from_bytes(b, 'little')


# ---- loads from the memory block (r1 = block, r2 = length)
for mn, size in (('ldxb', 1), ('ldxh', 2), ('ldxw', 4), ('ldxdw', 8)):
    for off in (0, 8):
        case('mem', '%s-mem-%d' % (mn, off), ['%s %%r0, [%%r1+%d]' % (mn, off), 'exit'],
             '%s zero-extends %d byte(s) at offset %d' % (mn, size, off), mem=MEM, expect=le(MEM[off:off + size]))
for mn, size in (('ldxbsx', 1), ('ldxhsx', 2), ('ldxwsx', 4)):
    bits = 8 * size
    for off in (0, 8):
        v = le(MEM[off:off + size])
        want = (v - (1 << bits)) & M64 if v >> (bits - 1) else v
        case('mem', '%s-mem-%d' % (mn, off), ['%s %%r0, [%%r1+%d]' % (mn, off), 'exit'],
             '%s sign-extends %d byte(s) at offset %d' % (mn, size, off), mem=MEM, expect=want)
case('mem', 'ldxdw-last-qword', ['mov %r3, %r1', 'add %r3, %r2', 'ldxdw %r0, [%r3-8]', 'exit'],
     'the last 8 bytes of the block, addressed from its end (negative offset)', mem=MEM, expect=le(MEM[8:16]))
case('mem', 'ldxb-last-byte', ['mov %r3, %r1', 'add %r3, %r2', 'ldxb %r0, [%r3-1]', 'exit'],
     'the last byte of the block', mem=MEM, expect=0x80)
case('mem', 'ldxh-same-reg', ['ldxh %r1, [%r1+2]', 'mov %r0, %r1', 'exit'], 'dst and src the same register', mem=MEM, expect=0x8403)
case('mem', 'ldx-r2-is-length', ['mov %r0, %r2', 'exit'], 'r2 holds the length of the block', mem=MEM, expect=16)
case('mem', 'no-mem-r1-r2-zero', ['mov %r0, %r1', 'or %r0, %r2', 'exit'], 'without -- mem, r1 and r2 are 0', expect=0)
case('mem', 'ldxw-all-offsets', ['ldxw %r0, [%r1+0]', 'ldxw %r3, [%r1+4]', 'add %r0, %r3', 'ldxw %r3, [%r1+8]', 'add %r0, %r3',
                                 'ldxw %r3, [%r1+12]', 'add %r0, %r3', 'exit'],
     'sum of the four words', mem=MEM, expect=sum(le(MEM[i:i + 4]) for i in range(0, 16, 4)))

# ---- stores into the memory block, read back
for mn, size in (('stb', 1), ('sth', 2), ('stw', 4), ('stdw', 8)):
    case('mem', '%s-mem' % mn, ['%s [%%r1+4], -2' % mn, 'ldxdw %r0, [%r1+0]', 'exit'],
         '%s writes %d byte(s) of the sign-extended immediate -2' % (mn, size), mem=MEM)
    case('mem', '%s-stack' % mn, ['stdw [%r10-16], 0', 'stdw [%r10-8], 0', '%s [%%r10-16], -2' % mn,
                                  'ldxdw %r0, [%r10-16]', 'ldxdw %r1, [%r10-8]', 'add %r0, %r1', 'exit'],
         '%s on the stack touches %d byte(s) only' % (mn, size))
for mn, size in (('stxb', 1), ('stxh', 2), ('stxw', 4), ('stxdw', 8)):
    case('mem', '%s-mem' % mn, ['lddw %r3, 0x1122334455667788', '%s [%%r1+8], %%r3' % mn, 'ldxdw %r0, [%r1+8]', 'exit'],
         '%s writes the low %d byte(s) of the register' % (mn, size), mem=MEM)
    case('mem', '%s-stack' % mn, ['stdw [%r10-8], -1', 'lddw %r3, 0x1122334455667788', '%s [%%r10-8], %%r3' % mn,
                                  'ldxdw %r0, [%r10-8]', 'exit'],
         '%s on the stack over 0xff bytes' % mn)
case('mem', 'stdw-imm-sign-extends', ['stdw [%r10-8], -1', 'ldxdw %r0, [%r10-8]', 'exit'],
     'stdw stores the immediate sign-extended to 64 bits', expect=M64)
case('mem', 'stw-positive-imm', ['stdw [%r10-8], 0', 'stw [%r10-8], 0x7fffffff', 'ldxdw %r0, [%r10-8]', 'exit'],
     'stw of 0x7fffffff leaves the upper word 0', expect=0x7fffffff)
case('mem', 'stack-bottom', ['stdw [%r10-512], 7', 'ldxdw %r0, [%r10-512]', 'exit'], 'the lowest stack slot [r10-512]', expect=7)
case('mem', 'stack-through-pointer', ['mov %r3, %r10', 'add %r3, -64', 'lddw %r4, 0xcafe', 'stxdw [%r3+8], %r4',
                                      'ldxdw %r0, [%r10-56]', 'exit'],
     'a stack pointer in another register reaches the same slot', expect=0xcafe)
case('mem', 'stack-fresh-per-run-zeroed-by-program', ['stdw [%r10-8], 0', 'ldxdw %r0, [%r10-8]', 'exit'], 'write then read 0', expect=0)
case('mem', 'copy-mem-to-stack', ['ldxdw %r3, [%r1+0]', 'stxdw [%r10-8], %r3', 'ldxdw %r4, [%r1+8]', 'stxdw [%r10-16], %r4',
                                  'ldxw %r0, [%r10-12]', 'exit'],
     'copy the block to the stack and read an unaligned-to-qword word', mem=MEM, expect=le(MEM[12:16]))
case('mem', 'ldxb-signed-loop', ['mov %r0, 0', 'mov %r3, 0', 'loop:', 'mov %r4, %r1', 'add %r4, %r3', 'ldxbsx %r5, [%r4+0]',
                                 'add %r0, %r5', 'add %r3, 1', 'jlt %r3, %r2, loop', 'exit'],
     'sum of the block as signed bytes', mem=MEM,
     expect=sum((b - 256 if b > 127 else b) for b in MEM) & M64)

# ---- atomics
ATOMIC_INIT = 0x00000000f0f0f0f0
ATOMIC_SRC = 0xffff00000f0f00ff
for op in ('add', 'or', 'and', 'xor'):
    for sfx, size, ld in (('', 8, 'ldxdw'), ('32', 4, 'ldxw')):
        base = ['lddw %%r3, %s' % h(ATOMIC_INIT), 'stxdw [%r10-8], %r3', 'stdw [%r10-16], -1',
                'lddw %%r2, %s' % h(ATOMIC_SRC)]
        case('atomic', 'lock-%s%s' % (op, sfx), base + ['lock %s%s [%%r10-8], %%r2' % (op, sfx), 'ldxdw %r0, [%r10-8]', 'exit'],
             'atomic %s (%d bytes), memory afterwards' % (op, size))
        case('atomic', 'lock-fetch-%s%s' % (op, sfx), base + ['lock fetch %s%s [%%r10-8], %%r2' % (op, sfx), 'mov %r0, %r2', 'exit'],
             'atomic fetch-%s (%d bytes): src receives the old value%s' % (op, size, ', zero-extended' if size == 4 else ''))
        case('atomic', 'lock-fetch-%s%s-mem' % (op, sfx), base + ['lock fetch %s%s [%%r10-8], %%r2' % (op, sfx), 'ldxdw %r0, [%r10-8]', 'exit'],
             'atomic fetch-%s (%d bytes), memory afterwards' % (op, size))
        case('atomic', 'lock-%s%s-on-mem-block' % (op, sfx), ['lddw %%r2, %s' % h(ATOMIC_SRC), 'lock %s%s [%%r1+8], %%r2' % (op, sfx),
                                                         'ldxdw %r0, [%r1+8]', 'exit'],
             'atomic %s (%d bytes) on the memory block' % (op, size), mem=MEM)
for sfx, size in (('', 8), ('32', 4)):
    base = ['lddw %r3, 0x1111111122222222', 'stxdw [%r10-8], %r3', 'lddw %r2, 0x3333333344444444']
    case('atomic', 'xchg%s' % sfx, base + ['lock xchg%s [%%r10-8], %%r2' % sfx, 'mov %r0, %r2', 'exit'],
         'xchg (%d bytes): src receives the old value' % size, expect=0x1111111122222222 if size == 8 else 0x22222222)
    case('atomic', 'xchg%s-mem' % sfx, base + ['lock xchg%s [%%r10-8], %%r2' % sfx, 'ldxdw %r0, [%r10-8]', 'exit'],
         'xchg (%d bytes): memory afterwards' % size, expect=0x3333333344444444 if size == 8 else 0x1111111144444444)
    # cmpxchg: r0 is compared with memory; r0 receives the old value either way.
    ok = ['lddw %r3, 0x1111111122222222', 'stxdw [%r10-8], %r3', 'lddw %r2, 0x3333333344444444']
    r0_ok = 'lddw %r0, 0x1111111122222222' if size == 8 else 'lddw %r0, 0x9999999922222222'
    r0_bad = 'lddw %r0, 0x1111111122222223'
    case('atomic', 'cmpxchg%s-success' % sfx, ok + [r0_ok, 'lock cmpxchg%s [%%r10-8], %%r2' % sfx, 'exit'],
         'cmpxchg (%d bytes) that matches: r0 = old value%s' % (size, ' (compares the low half of r0 only)' if size == 4 else ''),
         expect=0x1111111122222222 if size == 8 else 0x22222222)
    case('atomic', 'cmpxchg%s-success-mem' % sfx, ok + [r0_ok, 'lock cmpxchg%s [%%r10-8], %%r2' % sfx, 'ldxdw %r0, [%r10-8]', 'exit'],
         'cmpxchg (%d bytes) that matches stores src' % size,
         expect=0x3333333344444444 if size == 8 else 0x1111111144444444)
    case('atomic', 'cmpxchg%s-failure' % sfx, ok + [r0_bad, 'lock cmpxchg%s [%%r10-8], %%r2' % sfx, 'exit'],
         'cmpxchg (%d bytes) that does not match: r0 = old value' % size,
         expect=0x1111111122222222 if size == 8 else 0x22222222)
    case('atomic', 'cmpxchg%s-failure-mem' % sfx, ok + [r0_bad, 'lock cmpxchg%s [%%r10-8], %%r2' % sfx, 'ldxdw %r0, [%r10-8]', 'exit'],
         'cmpxchg (%d bytes) that does not match leaves memory alone' % size, expect=0x1111111122222222)
case('atomic', 'lock-add-hand', ['stdw [%r10-8], 40', 'mov %r1, 2', 'lock add [%r10-8], %r1', 'ldxdw %r0, [%r10-8]', 'exit'],
     '40 + 2', expect=42)
case('atomic', 'lock-fetch-add32-zero-extends', ['stw [%r10-8], -1', 'stw [%r10-4], 7', 'lddw %r1, 0xabcdef0000000001',
                                                 'lock fetch add32 [%r10-8], %r1', 'mov %r0, %r1', 'exit'],
     'fetch-add32 returns the old 32-bit value zero-extended', expect=0xffffffff)
case('atomic', 'lock-add32-wraps-in-word', ['stw [%r10-8], -1', 'stw [%r10-4], 7', 'mov %r1, 1',
                                            'lock add32 [%r10-8], %r1', 'ldxdw %r0, [%r10-8]', 'exit'],
     'add32 wraps inside its word: the neighbour word keeps 7', expect=0x0000000700000000)

# ---- lddw
for i, v in enumerate((0, M64, 1 << 63, 0x00000000ffffffff, 0xffffffff00000000, 0x123456789abcdef0)):
    case('lddw', 'lddw-%d' % i, ['lddw %%r0, %s' % h(v), 'exit'], 'lddw loads %s' % h(v), expect=v)
case('lddw', 'lddw-two', ['lddw %r0, 0x1000000000000000', 'lddw %r1, 0x0000000000000001', 'add %r0, %r1', 'exit'],
     'two lddw in a row', expect=0x1000000000000001)
case('lddw', 'lddw-all-registers', ['lddw %%r%d, %d' % (r, r) for r in range(10)] +
     ['add %%r0, %%r%d' % r for r in range(1, 10)] + ['exit'], 'lddw into r0-r9', expect=45)
case('lddw', 'lddw-jump-target-after', ['mov %r0, 0', 'jeq %r0, 0, +2', 'lddw %r0, 0x55', 'add %r0, 1', 'exit'],
     'a jump over an lddw counts its two slots', expect=1)
