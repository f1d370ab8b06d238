"""The corpus: a list of Case objects, grouped by instruction class. Expected values come from
the reference model (refvm.py); where a case gives `expect`, that hand-computed value must
agree with the model, which guards the model itself."""

M64 = (1 << 64) - 1
LLONG_MIN = 1 << 63
LLONG_MAX = (1 << 63) - 1
INT_MIN = 1 << 31


class Case:
    def __init__(self, group, name, asm, doc, mem=None, expect=None, error=None, raw=None):
        """With both `asm` and `raw`, the file has both sections as the public suites' files do: raw is the
        program and asm its listing."""
        self.group, self.name, self.asm, self.doc = group, name, asm, doc
        self.mem, self.expect, self.error, self.raw = mem, expect, error, raw


CASES = []


def case(group, name, lines, doc, **kw):
    asm = '\n'.join(lines) if isinstance(lines, (list, tuple)) else lines
    CASES.append(Case(group, name, asm, doc, **kw))


def h(v):
    return '0x%x' % (v & M64)


def imm(v):
    return str(v) if v >= 0 else '-%d' % -v


# ---------------------------------------------------------------- ALU / ALU64 binary operations
OPS = ['add', 'sub', 'mul', 'div', 'or', 'and', 'lsh', 'rsh', 'mod', 'xor', 'mov', 'arsh']
REG_SETS = [(0x1122334455667788, 0x0f0f0f0f0f0f0f0f), (0xfffffffffffffff0, 0x13),
            (0x8000000000000000, 0xffffffffffffffff)]
IMM_SETS = [(0x1122334455667788, 7), (0xfffffffffffffff0, -3), (0x80000000deadbeef, -0x80000000)]
SHIFT_IMMS = {64: [4, 63, 0], 32: [4, 31, 0]}

for bits in (64, 32):
    group = 'alu64' if bits == 64 else 'alu'
    sfx = '' if bits == 64 else '32'
    for op in OPS:
        for i, (a, b) in enumerate(REG_SETS, 1):
            case(group, '%s%s-reg-%d' % (op, sfx, i),
                 ['lddw %%r0, %s' % h(a), 'lddw %%r1, %s' % h(b), '%s%s %%r0, %%r1' % (op, sfx), 'exit'],
                 '%d-bit %s, register source (r0 = %s, r1 = %s)' % (bits, op, h(a), h(b)))
        for i, (a, b) in enumerate(IMM_SETS, 1):
            if op in ('lsh', 'rsh', 'arsh'):
                b = SHIFT_IMMS[bits][i - 1]
            case(group, '%s%s-imm-%d' % (op, sfx, i),
                 ['lddw %%r0, %s' % h(a), '%s%s %%r0, %s' % (op, sfx, imm(b)), 'exit'],
                 '%d-bit %s, immediate source %s (r0 = %s)' % (bits, op, imm(b), h(a)))

# Hand-checked edge cases of the binary operations.
case('alu64', 'add-wraps', ['lddw %r0, 0xffffffffffffffff', 'add %r0, 2', 'exit'], '64-bit add wraps around', expect=1)
case('alu', 'add32-wraps-and-zero-extends', ['lddw %r0, 0xaaaaaaaaffffffff', 'add32 %r0, 2', 'exit'],
     '32-bit add wraps in 32 bits and clears the upper half', expect=1)
case('alu64', 'add-imm-sign-extends', ['mov %r0, 0', 'add %r0, -1', 'exit'], 'the immediate is sign-extended to 64 bits', expect=M64)
case('alu', 'mov32-imm-zero-extends', ['lddw %r0, 0x1234567800000000', 'mov32 %r0, -1', 'exit'],
     'mov32 of -1 gives 0x00000000ffffffff', expect=0xffffffff)
case('alu64', 'mov-imm-sign-extends', ['mov %r0, -2', 'exit'], 'mov of -2 gives 0xfffffffffffffffe', expect=M64 - 1)
case('alu', 'mov32-reg-zero-extends', ['lddw %r1, 0xffffffffffffffff', 'mov32 %r0, %r1', 'exit'],
     'mov32 from a register keeps the low 32 bits only', expect=0xffffffff)
case('alu64', 'mul-overflow', ['lddw %r0, 0x100000001', 'lddw %r1, 0x100000001', 'mul %r0, %r1', 'exit'],
     '(2^32+1)^2 mod 2^64 = 2^33 + 1', expect=(1 << 33) + 1)
case('alu', 'mul32-high-bits-ignored', ['lddw %r0, 0x0000000500000003', 'lddw %r1, 0x0000000700000004', 'mul32 %r0, %r1', 'exit'],
     '32-bit mul ignores the upper halves', expect=12)
case('alu64', 'sub-below-zero', ['mov %r0, 3', 'sub %r0, 5', 'exit'], '3 - 5 wraps to 2^64 - 2', expect=M64 - 1)
case('alu', 'sub32-below-zero', ['mov %r0, 3', 'sub32 %r0, 5', 'exit'], '3 - 5 in 32 bits is 0xfffffffe, zero-extended', expect=0xfffffffe)
case('alu64', 'div-unsigned', ['lddw %r0, 0xfffffffffffffffe', 'mov %r1, 2', 'div %r0, %r1', 'exit'],
     'div is unsigned: (2^64 - 2) / 2', expect=0x7fffffffffffffff)
case('alu', 'div32-unsigned', ['lddw %r0, 0x12345678fffffffe', 'mov %r1, 2', 'div32 %r0, %r1', 'exit'],
     'div32 is unsigned on the low halves', expect=0x7fffffff)
case('alu64', 'div-imm-is-sign-extended', ['lddw %r0, 0xfffffffffffffffe', 'div %r0, -1', 'exit'],
     'imm -1 becomes 2^64 - 1 (unsigned): (2^64-2)/(2^64-1) = 0', expect=0)
case('alu64', 'mod-unsigned', ['lddw %r0, 0xffffffffffffffff', 'mov %r1, 10', 'mod %r0, %r1', 'exit'],
     '(2^64 - 1) mod 10 = 5', expect=5)

# Division and modulo by zero (register source: an immediate 0 is rejected by kernels).
for bits, sfx, group in ((64, '', 'alu64'), (32, '32', 'alu')):
    a = 0xdeadbeef12345678
    low = a & 0xffffffff
    case(group, 'div%s-by-zero-reg' % sfx, ['lddw %%r0, %s' % h(a), 'mov %r1, 0', 'div%s %%r0, %%r1' % sfx, 'exit'],
         '%d-bit division by zero gives 0' % bits, expect=0)
    case(group, 'mod%s-by-zero-reg' % sfx, ['lddw %%r0, %s' % h(a), 'mov %r1, 0', 'mod%s %%r0, %%r1' % sfx, 'exit'],
         '%d-bit modulo by zero leaves dst unchanged%s' % (bits, ' (zero-extended)' if bits == 32 else ''),
         expect=a if bits == 64 else low)
    case(group, 'sdiv%s-by-zero-reg' % sfx, ['lddw %%r0, %s' % h(a), 'mov %r1, 0', 'sdiv%s %%r0, %%r1' % sfx, 'exit'],
         '%d-bit signed division by zero gives 0' % bits, expect=0)
    case(group, 'smod%s-by-zero-reg' % sfx, ['lddw %%r0, %s' % h(a), 'mov %r1, 0', 'smod%s %%r0, %%r1' % sfx, 'exit'],
         '%d-bit signed modulo by zero leaves dst unchanged' % bits, expect=a if bits == 64 else low)
case('alu', 'div32-by-zero-upper-divisor', ['mov %r0, 12', 'lddw %r1, 0x100000000', 'div32 %r0, %r1', 'exit'],
     'div32 looks at the low half of the divisor only: 0x100000000 is a zero divisor', expect=0)
case('alu', 'mod32-by-zero-upper-divisor', ['lddw %r0, 0xffffffff0000000c', 'lddw %r1, 0x100000000', 'mod32 %r0, %r1', 'exit'],
     'mod32 by a divisor whose low half is 0 keeps the low half of dst', expect=12)

# Signed division and modulo: C semantics (truncation), LLONG_MIN / -1 and INT_MIN / -1.
SIGNED = [(-7, 2), (7, -2), (-7, -2), (7, 2)]
for bits, sfx, group, mn in ((64, '', 'alu64', LLONG_MIN), (32, '32', 'alu', INT_MIN)):
    mask = (1 << bits) - 1
    for a, b in SIGNED:
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        r = a - q * b
        tag = ('n' if a < 0 else 'p') + ('n' if b < 0 else 'p')
        hi = 0xabcdef0000000000 if bits == 32 else 0
        av = (a & mask) | hi
        case(group, 'sdiv%s-%s-reg' % (sfx, tag), ['lddw %%r0, %s' % h(av), 'mov %%r1, %s' % imm(b), 'sdiv%s %%r0, %%r1' % sfx, 'exit'],
             '%d-bit signed division %d / %d truncates towards zero' % (bits, a, b), expect=q & mask)
        case(group, 'sdiv%s-%s-imm' % (sfx, tag), ['lddw %%r0, %s' % h(av), 'sdiv%s %%r0, %s' % (sfx, imm(b)), 'exit'],
             '%d-bit signed division by immediate %d / %d' % (bits, a, b), expect=q & mask)
        case(group, 'smod%s-%s-reg' % (sfx, tag), ['lddw %%r0, %s' % h(av), 'mov %%r1, %s' % imm(b), 'smod%s %%r0, %%r1' % sfx, 'exit'],
             '%d-bit signed modulo %d %% %d has the sign of the dividend' % (bits, a, b), expect=r & mask)
        case(group, 'smod%s-%s-imm' % (sfx, tag), ['lddw %%r0, %s' % h(av), 'smod%s %%r0, %s' % (sfx, imm(b)), 'exit'],
             '%d-bit signed modulo by immediate %d %% %d' % (bits, a, b), expect=r & mask)
    case(group, 'sdiv%s-min-by-minus-one-reg' % sfx, ['lddw %%r0, %s' % h(mn), 'mov %r1, -1', 'sdiv%s %%r0, %%r1' % sfx, 'exit'],
         '%s / -1 overflows to itself' % ('LLONG_MIN' if bits == 64 else 'INT_MIN'), expect=mn)
    case(group, 'sdiv%s-min-by-minus-one-imm' % sfx, ['lddw %%r0, %s' % h(mn), 'sdiv%s %%r0, -1' % sfx, 'exit'],
         '%s / -1 (immediate) overflows to itself' % ('LLONG_MIN' if bits == 64 else 'INT_MIN'), expect=mn)
    case(group, 'smod%s-min-by-minus-one-reg' % sfx, ['lddw %%r0, %s' % h(mn), 'mov %r1, -1', 'smod%s %%r0, %%r1' % sfx, 'exit'],
         '%s %% -1 is 0' % ('LLONG_MIN' if bits == 64 else 'INT_MIN'), expect=0)
    case(group, 'smod%s-min-by-minus-one-imm' % sfx, ['lddw %%r0, %s' % h(mn), 'smod%s %%r0, -1' % sfx, 'exit'],
         '%s %% -1 (immediate) is 0' % ('LLONG_MIN' if bits == 64 else 'INT_MIN'), expect=0)

# Shifts: the amount is masked (& 63, & 31); arsh keeps the sign.
case('alu64', 'lsh-reg-masked', ['mov %r0, 1', 'mov %r1, 65', 'lsh %r0, %r1', 'exit'], 'shift amount 65 & 63 = 1', expect=2)
case('alu64', 'rsh-reg-masked', ['lddw %r0, 0x8000000000000000', 'mov %r1, 127', 'rsh %r0, %r1', 'exit'], 'shift amount 127 & 63 = 63', expect=1)
case('alu64', 'arsh-reg-masked', ['lddw %r0, 0x8000000000000000', 'mov %r1, 127', 'arsh %r0, %r1', 'exit'], 'arsh by 127 & 63 = 63 fills with the sign', expect=M64)
case('alu', 'lsh32-reg-masked', ['mov %r0, 1', 'mov %r1, 33', 'lsh32 %r0, %r1', 'exit'], 'shift amount 33 & 31 = 1', expect=2)
case('alu', 'rsh32-reg-masked', ['lddw %r0, 0xffffffff80000000', 'mov %r1, 63', 'rsh32 %r0, %r1', 'exit'], 'rsh32 by 63 & 31 = 31 of the low half', expect=1)
case('alu', 'arsh32-reg-masked', ['lddw %r0, 0x80000000', 'mov %r1, 63', 'arsh32 %r0, %r1', 'exit'], 'arsh32 by 31 gives 0xffffffff, zero-extended', expect=0xffffffff)
case('alu', 'arsh32-sign-bit-31', ['lddw %r0, 0x00000000f0000000', 'arsh32 %r0, 4', 'exit'], 'arsh32 uses bit 31 as the sign', expect=0xff000000)
case('alu64', 'arsh-positive', ['lddw %r0, 0x7000000000000000', 'arsh %r0, 4', 'exit'], 'arsh of a positive value shifts in zeros', expect=0x0700000000000000)
case('alu64', 'arsh-negative', ['lddw %r0, 0xf000000000000000', 'arsh %r0, 4', 'exit'], 'arsh of a negative value shifts in ones', expect=0xff00000000000000)
case('alu', 'lsh32-drops-upper', ['lddw %r0, 0x0000000180000001', 'lsh32 %r0, 1', 'exit'], 'lsh32 drops the carried bit and the upper half', expect=2)

# neg
for a in (1, 0, LLONG_MIN, 0x00000000ffffffff):
    case('alu64', 'neg-%x' % a, ['lddw %%r0, %s' % h(a), 'neg %r0', 'exit'], '64-bit neg of %s' % h(a), expect=(-a) & M64)
for a in (1, 0x1234567800000000, 0xffffffff80000000):
    case('alu', 'neg32-%x' % a, ['lddw %%r0, %s' % h(a), 'neg32 %r0', 'exit'], '32-bit neg of %s (low half, zero-extended)' % h(a),
         expect=(-(a & 0xffffffff)) & 0xffffffff)

# movsx
MOVSX = [('movsx864', 0x1234567890abcd80, 0xffffffffffffff80), ('movsx864', 0xffffffffffffff7f, 0x7f),
         ('movsx1664', 0x1234567890ab8001, 0xffffffffffff8001), ('movsx1664', 0xffffffffffff7fff, 0x7fff),
         ('movsx3264', 0x1234567880000000, 0xffffffff80000000), ('movsx3264', 0xffffffff7fffffff, 0x7fffffff),
         ('movsx832', 0x1234567890abcd80, 0xffffff80), ('movsx832', 0xffffffffffffff7f, 0x7f),
         ('movsx1632', 0x1234567890ab8001, 0xffff8001), ('movsx1632', 0xffffffffffff7fff, 0x7fff)]
for i, (mn, src, want) in enumerate(MOVSX):
    group = 'alu64' if mn.endswith('64') else 'alu'
    case(group, '%s-%s' % (mn, 'negative' if i % 2 == 0 else 'positive'), ['lddw %%r1, %s' % h(src), 'lddw %r0, 0x5555555555555555', '%s %%r0, %%r1' % mn, 'exit'],
         '%s sign-extends the low %s bits of %s' % (mn, mn[5:-2], h(src)), expect=want)

# le / be / bswap
V = 0x8877665544332211
for mn, want in (('le16', 0x2211), ('le32', 0x44332211), ('le64', V), ('be16', 0x1122), ('be32', 0x11223344),
                 ('be64', 0x1122334455667788), ('bswap16', 0x1122), ('bswap32', 0x11223344), ('bswap64', 0x1122334455667788)):
    group = 'alu64' if mn.startswith('bswap') else 'alu'
    case(group, mn, ['lddw %%r0, %s' % h(V), '%s %%r0' % mn, 'exit'], '%s of %s' % (mn, h(V)), expect=want)
W = 0x00000000000000ff
for mn, want in (('be16', 0xff00), ('be32', 0xff000000), ('be64', 0xff00000000000000), ('bswap16', 0xff00), ('le16', 0xff)):
    group = 'alu64' if mn.startswith('bswap') else 'alu'
    case(group, mn + '-low-byte', ['lddw %%r0, %s' % h(W), '%s %%r0' % mn, 'exit'], '%s of 0xff' % mn, expect=want)

# Immediate divisors of 0 and out-of-range immediate shift amounts: the kernel's verifier refuses
# them, RFC 9669 defines them (x / 0 = 0, x % 0 = x, shift amounts masked), and bpf4j follows the RFC.
for bits, sfx, group in ((64, '', 'alu64'), (32, '32', 'alu')):
    a = 0xfedcba9876543210
    low = a & 0xffffffff
    case(group, 'div%s-by-zero-imm' % sfx, ['lddw %%r0, %s' % h(a), 'div%s %%r0, 0' % sfx, 'exit'],
         '%d-bit division by an immediate 0 gives 0' % bits, expect=0)
    case(group, 'mod%s-by-zero-imm' % sfx, ['lddw %%r0, %s' % h(a), 'mod%s %%r0, 0' % sfx, 'exit'],
         '%d-bit modulo by an immediate 0 leaves dst%s' % (bits, ' (zero-extended)' if bits == 32 else ''),
         expect=a if bits == 64 else low)
    case(group, 'sdiv%s-by-zero-imm' % sfx, ['lddw %%r0, %s' % h(a), 'sdiv%s %%r0, 0' % sfx, 'exit'],
         '%d-bit signed division by an immediate 0 gives 0' % bits, expect=0)
    case(group, 'smod%s-by-zero-imm' % sfx, ['lddw %%r0, %s' % h(a), 'smod%s %%r0, 0' % sfx, 'exit'],
         '%d-bit signed modulo by an immediate 0 leaves dst' % bits, expect=a if bits == 64 else low)
case('alu64', 'lsh-imm-high', ['mov %r0, 1', 'lsh %r0, 65', 'exit'], 'immediate shift 65 is masked to 1', expect=2)
case('alu64', 'arsh-imm-high', ['lddw %r0, 0x8000000000000000', 'arsh %r0, 127', 'exit'], 'immediate arsh 127 is masked to 63', expect=M64)
case('alu', 'rsh32-imm-high', ['lddw %r0, 0x1ffffffff', 'rsh32 %r0, 33', 'exit'], 'immediate rsh32 33 is masked to 1 (low half only)', expect=0x7fffffff)
case('alu', 'arsh32-imm-high', ['lddw %r0, 0x80000000', 'arsh32 %r0, 36', 'exit'], 'immediate arsh32 36 is masked to 4', expect=0xf8000000)
