"""Jump cases: every conditional jump, K and X, JMP and JMP32, with signed/unsigned boundaries."""
from corpus import case, h, imm, M64, LLONG_MIN, LLONG_MAX

JOPS = ['jeq', 'jne', 'jgt', 'jge', 'jlt', 'jle', 'jset', 'jsgt', 'jsge', 'jslt', 'jsle']

# (dst, src) pairs for the register forms: equal, smaller, bigger, signed/unsigned boundaries.
REG_PAIRS_64 = [(1, 1), (1, 2), (2, 1), (M64, 1), (1, M64), (LLONG_MIN, LLONG_MAX), (LLONG_MAX, LLONG_MIN),
                (0, LLONG_MIN), (0x0f0, 0x00f), (0x0f0, 0x010)]
# JMP32 compares the low halves only: the upper halves disagree with the 32-bit answer.
REG_PAIRS_32 = [(0x100000001, 0x200000001), (0xffffffff00000001, 0x2), (0x00000000000000002, 0xffffffff00000001),
                (0x00000000ffffffff, 0x7fffffff00000001), (0x1, 0xffffffff), (0xffffffff80000000, 0x7fffffff),
                (0x7fffffff, 0x80000000), (0x100000000, 0x80000000), (0xf0, 0x100000000f), (0x1000000f0, 0x10)]
# (dst, imm) pairs for the immediate forms: the imm is sign-extended to 64 bits for JMP.
IMM_PAIRS_64 = [(5, 5), (4, 5), (6, 5), (M64, -1), (1, -1), (M64, 1), (0x80000000, -0x80000000),
                (0xffffffff80000000, -0x80000000), (0x7fffffff, 0x7fffffff), (0x30, 0x10)]
IMM_PAIRS_32 = [(0x500000005, 5), (0xffffffff00000004, 5), (0x6, 5), (0x00000000ffffffff, -1), (0xffffffff00000001, -1),
                (0x180000000, -0x80000000), (0x7fffffff, -0x80000000), (0x12345678ffffffff, 1), (0x100000000, 0), (0x30, 0x10)]


def bitmask_program(jop, pairs, regform):
    """r0 gets bit i when comparison i is taken: taken jumps over the 'ja' that skips the 'or'."""
    lines = ['mov %r0, 0']
    for i, (a, b) in enumerate(pairs):
        lines.append('lddw %%r1, %s' % h(a))
        if regform:
            lines.append('lddw %%r2, %s' % h(b))
            lines.append('%s %%r1, %%r2, +1' % jop)
        else:
            lines.append('%s %%r1, %s, +1' % (jop, imm(b)))
        lines.append('ja +1')
        lines.append('or %%r0, %d' % (1 << i))
    lines.append('exit')
    return lines


for jop in JOPS:
    for bits, sfx in ((64, ''), (32, '32')):
        group = 'jmp' if bits == 64 else 'jmp32'
        case(group, '%s%s-reg' % (jop, sfx), bitmask_program(jop + sfx, REG_PAIRS_64 if bits == 64 else REG_PAIRS_32, True),
             '%s%s with a register source: r0 bit i is set when comparison i is taken' % (jop, sfx))
        case(group, '%s%s-imm' % (jop, sfx), bitmask_program(jop + sfx, IMM_PAIRS_64 if bits == 64 else IMM_PAIRS_32, False),
             '%s%s with an immediate source: r0 bit i is set when comparison i is taken' % (jop, sfx))
        # The 32-bit pairs under the 64-bit jumps and vice versa tell JMP and JMP32 apart.
        case(group, '%s%s-reg-cross' % (jop, sfx), bitmask_program(jop + sfx, REG_PAIRS_32 if bits == 64 else REG_PAIRS_64, True),
             '%s%s on pairs whose halves disagree (JMP vs JMP32)' % (jop, sfx))

# Hand-checked jump cases.
case('jmp', 'jeq-taken-simple', ['mov %r0, 1', 'mov %r1, 7', 'jeq %r1, 7, +1', 'mov %r0, 2', 'exit'], 'jeq taken skips one', expect=1)
case('jmp', 'jsgt-imm-negative', ['mov %r0, 0', 'mov %r1, -1', 'jsgt %r1, -2, +1', 'exit', 'mov %r0, 1', 'exit'],
     '-1 > -2 signed', expect=1)
case('jmp', 'jgt-imm-unsigned', ['mov %r0, 0', 'mov %r1, -1', 'jgt %r1, 5, +1', 'exit', 'mov %r0, 1', 'exit'],
     '2^64 - 1 > 5 unsigned', expect=1)
case('jmp32', 'jeq32-ignores-upper', ['mov %r0, 0', 'lddw %r1, 0xffffffff00000007', 'jeq32 %r1, 7, +1', 'exit', 'mov %r0, 1', 'exit'],
     'jeq32 compares the low 32 bits', expect=1)
case('jmp', 'jeq-sees-upper', ['mov %r0, 0', 'lddw %r1, 0xffffffff00000007', 'jeq %r1, 7, +1', 'exit', 'mov %r0, 1', 'exit'],
     'jeq compares all 64 bits', expect=0)
case('jmp32', 'jslt32-sign-bit-31', ['mov %r0, 0', 'lddw %r1, 0x0000000080000000', 'jslt32 %r1, 0, +1', 'exit', 'mov %r0, 1', 'exit'],
     '0x80000000 is negative as a 32-bit value', expect=1)
case('jmp', 'jslt-positive-64', ['mov %r0, 0', 'lddw %r1, 0x0000000080000000', 'jslt %r1, 0, +1', 'exit', 'mov %r0, 1', 'exit'],
     '0x80000000 is positive as a 64-bit value', expect=0)
case('jmp', 'jset-no-common-bit', ['mov %r0, 0', 'mov %r1, 0xf0', 'jset %r1, 0x0f, +1', 'exit', 'mov %r0, 1', 'exit'],
     'jset not taken without a common bit', expect=0)
case('jmp', 'ja-forward', ['mov %r0, 1', 'ja +2', 'mov %r0, 2', 'mov %r0, 3', 'exit'], 'ja +2 skips two', expect=1)
case('jmp', 'ja-label', ['mov %r0, 1', 'ja done', 'mov %r0, 2', 'done:', 'exit'], 'ja to a label', expect=1)
case('jmp', 'ja-over-lddw', ['mov %r0, 1', 'ja +2', 'lddw %r0, 0x1122334455667788', 'exit'], 'an lddw is two slots: ja +2 skips it', expect=1)
case('jmp', 'ja-backward', ['mov %r0, 0', 'ja +2', 'add %r0, 5', 'exit', 'add %r0, 1', 'ja -4'],
     'backward ja: 0 +1 then jump back to +5', expect=6)
case('jmp32', 'gotol-forward', ['mov %r0, 1', 'ja32 +1', 'mov %r0, 2', 'exit'], 'gotol (ja32, offset in imm) skips one', expect=1)
case('jmp32', 'gotol-label', ['mov %r0, 1', 'ja32 end', 'mov %r0, 2', 'mov %r0, 3', 'end:', 'exit'], 'gotol to a label', expect=1)
case('jmp32', 'gotol-backward', ['mov %r0, 0', 'ja32 +2', 'add %r0, 7', 'exit', 'add %r0, 1', 'ja32 -4'],
     'backward gotol', expect=8)
case('jmp', 'loop-sum', ['mov %r0, 0', 'mov %r1, 100', 'loop:', 'add %r0, %r1', 'sub %r1, 1', 'jne %r1, 0, loop', 'exit'],
     'sum 1..100 with a backward conditional jump', expect=5050)
case('jmp32', 'loop-sum32', ['mov %r0, 0', 'lddw %r1, 0xffffffff0000000a', 'loop:', 'add %r0, 1', 'sub32 %r1, 1', 'jne32 %r1, 0, loop', 'exit'],
     'a JMP32 loop counter', expect=10)
case('jmp', 'loop-long', ['mov %r0, 0', 'lddw %r1, 100000', 'loop:', 'add %r0, 3', 'sub %r1, 1', 'jgt %r1, 0, loop', 'exit'],
     '100000 back-edges stay within the default budget', expect=300000)
case('jmp', 'exit-early', ['mov %r0, 9', 'exit', 'mov %r0, 1', 'exit'], 'the first exit ends the program', expect=9)
case('jmp', 'jne-reg-backward-label', ['mov %r0, 0', 'mov %r1, 0', 'mov %r2, 4', 'top:', 'add %r1, 1', 'add %r0, %r1', 'jne %r1, %r2, top', 'exit'],
     'register-compared backward loop: 1+2+3+4', expect=10)
case('jmp', 'ja-zero', ['mov %r0, 1', 'ja +0', 'exit'], 'ja +0 is a no-op (not a back-edge)', expect=1)
case('jmp32', 'jeq32-imm-zero-upper', ['lddw %r1, 0x100000000', 'mov %r0, 0', 'jeq32 %r1, 0, +1', 'exit', 'mov %r0, 1', 'exit'],
     'jeq32 sees 0 in 0x100000000', expect=1)
