"""A small assembler for the conformance suites' text syntax (bpf_conformance / uBPF).

It exists only so the corpus generator can run each program on the reference model
(refvm.py) and check the syntax it writes; bpf4j's own assembler lives in bpf-core.
Returns a list of slots (opcode, dst, src, off, imm) with off/imm signed.
"""
import re

ALU_OPS = {'add': 0x00, 'sub': 0x10, 'mul': 0x20, 'div': 0x30, 'sdiv': 0x30, 'or': 0x40, 'and': 0x50,
           'lsh': 0x60, 'rsh': 0x70, 'neg': 0x80, 'mod': 0x90, 'smod': 0x90, 'xor': 0xa0, 'mov': 0xb0,
           'arsh': 0xc0}
JMP_OPS = {'jeq': 0x10, 'jgt': 0x20, 'jge': 0x30, 'jset': 0x40, 'jne': 0x50, 'jsgt': 0x60, 'jsge': 0x70,
           'jlt': 0xa0, 'jle': 0xb0, 'jslt': 0xc0, 'jsle': 0xd0}
SIZES = {'b': 0x10, 'h': 0x08, 'w': 0x00, 'dw': 0x18}
ATOMIC_OPS = {'add': 0x00, 'or': 0x40, 'and': 0x50, 'xor': 0xa0, 'xchg': 0xe1, 'cmpxchg': 0xf1}


class AsmError(Exception):
    pass


def s16(v):
    v &= 0xffff
    return v - 0x10000 if v & 0x8000 else v


def s32(v):
    v &= 0xffffffff
    return v - 0x100000000 if v & 0x80000000 else v


def num(tok):
    t = tok.strip()
    neg = t.startswith('-')
    if neg or t.startswith('+'):
        t = t[1:]
    v = int(t, 16) if t.lower().startswith('0x') else int(t, 10)
    return -v if neg else v


def reg(tok):
    m = re.fullmatch(r'%?r(\d+)', tok.strip())
    if not m or int(m.group(1)) > 15:
        raise AsmError('bad register ' + tok)
    return int(m.group(1))


def is_reg(tok):
    return re.fullmatch(r'%?r\d+', tok.strip()) is not None


def memop(tok):
    m = re.fullmatch(r'\[\s*(%?r\d+)\s*(?:([+-])\s*(\w+))?\s*\]', tok.strip())
    if not m:
        raise AsmError('bad memory operand ' + tok)
    off = 0
    if m.group(2):
        off = num(m.group(3)) * (-1 if m.group(2) == '-' else 1)
    return reg(m.group(1)), off


def split_operands(rest):
    return [o.strip() for o in rest.split(',')] if rest.strip() else []


def assemble(text):
    lines = []
    for raw in text.split('\n'):
        line = raw.split('#', 1)[0].strip()
        if line:
            lines.append(line)
    labels, items, pc = {}, [], 0
    for line in lines:
        if line.endswith(':'):
            labels[line[:-1]] = pc
            continue
        parts = line.split(None, 1)
        mn, ops = parts[0], split_operands(parts[1] if len(parts) > 1 else '')
        items.append((pc, mn, ops, line))
        pc += 2 if mn == 'lddw' else 1
    out = []
    for pc, mn, ops, line in items:
        try:
            out.extend(encode(pc, mn, ops, labels))
        except (AsmError, ValueError, KeyError, IndexError) as e:
            raise AsmError('%s: %s' % (line, e))
    return out


def target(tok, pc, labels):
    if tok.startswith('+') or tok.startswith('-'):
        return num(tok)
    if tok not in labels:
        raise AsmError('unknown label ' + tok)
    return labels[tok] - pc - 1


def encode(pc, mn, ops, labels):
    if mn == 'exit':
        return [(0x95, 0, 0, 0, 0)]
    if mn == 'ja':
        return [(0x05, 0, 0, s16(target(ops[0], pc, labels)), 0)]
    if mn == 'ja32':
        return [(0x06, 0, 0, 0, s32(target(ops[0], pc, labels)))]
    if mn == 'call':
        if is_reg(ops[0]):  # callx (bpf_conformance's `call %rN`): the helper id is in dst
            return [(0x8d, reg(ops[0]), 0, 0, 0)]
        if ops[0].startswith('local '):
            return [(0x85, 0, 1, 0, s32(target(ops[0][6:].strip(), pc, labels)))]
        return [(0x85, 0, 0, 0, s32(num(ops[0])))]
    if mn == 'lddw':
        v = num(ops[1]) & 0xffffffffffffffff
        return [(0x18, reg(ops[0]), 0, 0, s32(v)), (0, 0, 0, 0, s32(v >> 32))]
    if mn == 'lock':
        words = ops[0].split()
        fetch = 0
        if words[0] == 'fetch':
            fetch, words = 1, words[1:]
        op = words[0]
        size = 0x00 if op.endswith('32') else 0x18
        op = op[:-2] if op.endswith('32') else op
        dst, off = memop(words[1])
        imm = ATOMIC_OPS[op] | (fetch if op in ('add', 'or', 'and', 'xor') else 0)
        return [(0xc3 | size, dst, reg(ops[1]), s16(off), imm)]
    m = re.fullmatch(r'(ldx|stx|st)(dw|w|h|b)(sx)?', mn)
    if m:
        kind, size, sx = m.group(1), SIZES[m.group(2)], m.group(3)
        if kind == 'ldx':
            src, off = memop(ops[1])
            return [((0x81 if sx else 0x61) | size, reg(ops[0]), src, s16(off), 0)]
        dst, off = memop(ops[0])
        if kind == 'stx':
            return [(0x63 | size, dst, reg(ops[1]), s16(off), 0)]
        return [(0x62 | size, dst, 0, s16(off), s32(num(ops[1])))]
    m = re.fullmatch(r'(le|be|bswap)(16|32|64)', mn)
    if m:
        opc = {'le': 0xd4, 'be': 0xdc, 'bswap': 0xd7}[m.group(1)]
        return [(opc, reg(ops[0]), 0, 0, int(m.group(2)))]
    m = re.fullmatch(r'movsx(8|16|32)(32|64)', mn)
    if m:
        cls = 0x07 if m.group(2) == '64' else 0x04
        return [(cls | 0xb0 | 0x08, reg(ops[0]), reg(ops[1]), int(m.group(1)), 0)]
    base, cls = mn, 0x07
    if mn.endswith('32'):
        base, cls = mn[:-2], 0x04
    if base in JMP_OPS:
        jcls = 0x06 if cls == 0x04 else 0x05
        off = s16(target(ops[2], pc, labels))
        if is_reg(ops[1]):
            return [(jcls | JMP_OPS[base] | 0x08, reg(ops[0]), reg(ops[1]), off, 0)]
        return [(jcls | JMP_OPS[base], reg(ops[0]), 0, off, s32(num(ops[1])))]
    if base in ALU_OPS:
        off = 1 if base in ('sdiv', 'smod') else 0
        if base == 'neg':
            return [(cls | 0x80, reg(ops[0]), 0, 0, 0)]
        if is_reg(ops[1]):
            return [(cls | ALU_OPS[base] | 0x08, reg(ops[0]), reg(ops[1]), off, 0)]
        return [(cls | ALU_OPS[base], reg(ops[0]), 0, off, s32(num(ops[1])))]
    raise AsmError('unknown mnemonic ' + mn)


def decode_raw(word):
    """One 64-bit instruction word (as in a -- raw section) back to its slot, off/imm signed."""
    return (word & 0xff, (word >> 8) & 0xf, (word >> 12) & 0xf, s16(word >> 16), s32(word >> 32))


def encode_raw(slot):
    op, dst, src, off, imm = slot
    return op | ((src << 4 | dst) << 8) | ((off & 0xffff) << 16) | ((imm & 0xffffffff) << 32)
