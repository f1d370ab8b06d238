"""Reference model of RFC 9669 + docs/runtime-semantics.md, written independently of
bpf-interp, used to compute the expected results of the generated corpus."""

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1
STACK = 512
MAX_FRAMES = 8
DEFAULT_BUDGET = 1_000_000


class BpfError(Exception):
    """category is the phrase the corpus writes under '-- error'."""

    def __init__(self, category, pc, detail=''):
        super().__init__('%s at pc %d %s' % (category, pc, detail))
        self.category = category
        self.pc = pc


class ModelBug(Exception):
    """The test program itself is wrong (reads an uninitialised register, ...)."""


def sx(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def bswap(v, bits):
    return int.from_bytes((v & ((1 << bits) - 1)).to_bytes(bits // 8, 'little'), 'big')


def tdiv(a, b):
    """C division: truncates towards zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def alu(code, a, b, bits, off):
    mask = (1 << bits) - 1
    a &= mask
    b &= mask
    if code == 0x00: r = a + b
    elif code == 0x10: r = a - b
    elif code == 0x20: r = a * b
    elif code == 0x30:
        if off == 0: r = 0 if b == 0 else a // b
        else: r = 0 if b == 0 else tdiv(sx(a, bits), sx(b, bits))
    elif code == 0x90:
        if off == 0: r = a if b == 0 else a % b
        else:
            sa, sb = sx(a, bits), sx(b, bits)
            r = a if sb == 0 else sa - tdiv(sa, sb) * sb
    elif code == 0x40: r = a | b
    elif code == 0x50: r = a & b
    elif code == 0xa0: r = a ^ b
    elif code == 0x60: r = a << (b & (bits - 1))
    elif code == 0x70: r = a >> (b & (bits - 1))
    elif code == 0xc0: r = sx(a, bits) >> (b & (bits - 1))
    elif code == 0x80: r = -a
    elif code == 0xb0: r = b if off == 0 else sx(b, off)
    else: raise ModelBug('bad alu op %#x' % code)
    return r & mask


def cond(code, a, b, bits):
    mask = (1 << bits) - 1
    a &= mask
    b &= mask
    sa, sb = sx(a, bits), sx(b, bits)
    return {0x10: a == b, 0x20: a > b, 0x30: a >= b, 0x40: (a & b) != 0, 0x50: a != b,
            0x60: sa > sb, 0x70: sa >= sb, 0xa0: a < b, 0xb0: a <= b, 0xc0: sa < sb,
            0xd0: sa <= sb}[code]


class Memory:
    def __init__(self, mem, mem_base, stack_top):
        self.mem = bytearray(mem) if mem is not None else None
        self.mem_base = mem_base
        self.stack_top = stack_top
        self.frames = {}   # depth -> bytearray(512)

    def frame_top(self, depth):
        return self.stack_top - depth * 0x10000

    def locate(self, addr, size, write, live_depth, pc):
        if addr + size <= M64 + 1:
            if self.mem is not None and self.mem_base <= addr and addr + size <= self.mem_base + len(self.mem):
                return self.mem, addr - self.mem_base
            for d in range(live_depth + 1):
                top = self.frame_top(d)
                if top - STACK <= addr and addr + size <= top:
                    return self.frames[d], addr - (top - STACK)
        raise BpfError('out of bounds', pc, '%d-byte %s at %#x' % (size, 'write' if write else 'read', addr))

    def load(self, addr, size, depth, pc):
        buf, i = self.locate(addr, size, False, depth, pc)
        return int.from_bytes(buf[i:i + size], 'little')

    def store(self, addr, size, value, depth, pc):
        buf, i = self.locate(addr, size, True, depth, pc)
        buf[i:i + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(size, 'little')


def run(slots, mem=None, mem_base=0x10000000, stack_top=0x7fff00000000, budget=DEFAULT_BUDGET):
    """Runs the program; returns r0 or raises BpfError. Registers never written are None."""
    regs = [None] * 11
    regs[1] = mem_base if mem is not None else 0
    regs[2] = len(mem) if mem is not None else 0
    memory = Memory(mem, mem_base, stack_top)
    memory.frames[0] = bytearray(STACK)
    regs[10] = memory.frame_top(0)
    calls = []  # (return pc, saved r6-r9)
    events = 0
    pc = 0

    def get(r):
        if regs[r] is None:
            raise ModelBug('pc %d reads uninitialised r%d' % (pc, r))
        return regs[r]

    def unwind():
        """Helper 5: r0 = r1, r1-r5 clobbered; True when the program ends here (r1 was 0)."""
        r1 = get(1)
        regs[0] = r1
        regs[1:6] = [None] * 5
        return r1 == 0

    def event():
        nonlocal events
        if events + 1 > budget:
            raise BpfError('budget exceeded', pc)
        events += 1

    while True:
        if pc < 0 or pc >= len(slots):
            raise ModelBug('pc %d out of program' % pc)
        op, dst, src, off, imm = slots[pc]
        cls = op & 7
        if cls in (0x04, 0x07):
            bits = 64 if cls == 0x07 else 32
            code = op & 0xf0
            if code == 0xd0:
                v = get(dst)
                if cls == 0x07 or op & 0x08:
                    regs[dst] = bswap(v, imm)
                else:
                    regs[dst] = v & ((1 << imm) - 1)
            else:
                b = get(src) if op & 0x08 else (imm & M64)
                a = 0 if code in (0xb0,) else get(dst)
                regs[dst] = alu(code, a, b, bits, off) & M64
            pc += 1
        elif cls in (0x05, 0x06):
            code = op & 0xf0
            if code == 0x00:
                nxt = pc + 1 + (imm if cls == 0x06 else off)
                if nxt <= pc:
                    event()
                pc = nxt
            elif code == 0x95 & 0xf0 and op == 0x95:
                if not calls:
                    return get(0)
                pc, saved = calls.pop()
                regs[6:10] = saved
                del memory.frames[len(calls) + 1]
                regs[10] = memory.frame_top(len(calls))
            elif op == 0x85:
                if src == 1:
                    event()
                    if len(calls) + 1 >= MAX_FRAMES:
                        raise BpfError('call depth exceeded', pc)
                    calls.append((pc + 1, regs[6:10]))
                    memory.frames[len(calls)] = bytearray(STACK)
                    regs[10] = memory.frame_top(len(calls))
                    regs[0] = None
                    regs[6:10] = [None] * 4
                    pc = pc + 1 + imm
                elif src == 0 and imm == 5:
                    if unwind():
                        return 0
                    pc += 1
                else:
                    raise BpfError('unknown helper', pc)
            elif op == 0x8d:  # callx: the helper whose id is in dst (uBPF); any other id fails when it runs
                if get(dst) != 5:
                    raise BpfError('helper failed', pc)
                if unwind():
                    return 0
                pc += 1
            else:
                bits = 32 if cls == 0x06 else 64
                b = get(src) if op & 0x08 else (imm & M64)
                taken = cond(code, get(dst), b, bits)
                nxt = pc + 1 + off if taken else pc + 1
                if taken and nxt <= pc:
                    event()
                pc = nxt
        elif op == 0x18:
            regs[dst] = (imm & M32) | ((slots[pc + 1][4] & M32) << 32)
            pc += 2
        elif cls == 0x01:
            size = {0x00: 4, 0x08: 2, 0x10: 1, 0x18: 8}[op & 0x18]
            addr = (get(src) + off) & M64
            v = memory.load(addr, size, len(calls), pc)
            regs[dst] = (sx(v, 8 * size) & M64) if (op & 0xe0) == 0x80 else v
            pc += 1
        elif cls == 0x02:
            size = {0x00: 4, 0x08: 2, 0x10: 1, 0x18: 8}[op & 0x18]
            memory.store((get(dst) + off) & M64, size, imm & M64, len(calls), pc)
            pc += 1
        elif cls == 0x03 and (op & 0xe0) == 0x60:
            size = {0x00: 4, 0x08: 2, 0x10: 1, 0x18: 8}[op & 0x18]
            memory.store((get(dst) + off) & M64, size, get(src), len(calls), pc)
            pc += 1
        elif cls == 0x03 and (op & 0xe0) == 0xc0:
            size = 8 if (op & 0x18) == 0x18 else 4
            bits = 8 * size
            mask = (1 << bits) - 1
            addr = (get(dst) + off) & M64
            old = memory.load(addr, size, len(calls), pc)
            if addr % size:
                raise BpfError('misaligned atomic', pc, '%d-byte atomic at %#x' % (size, addr))
            s = get(src) & mask
            if imm == 0xf1:
                if old == get(0) & mask:
                    memory.store(addr, size, s, len(calls), pc)
                regs[0] = old
            elif imm == 0xe1:
                memory.store(addr, size, s, len(calls), pc)
                regs[src] = old
            else:
                code = imm & 0xf0
                new = {0x00: old + s, 0x40: old | s, 0x50: old & s, 0xa0: old ^ s}[code] & mask
                memory.store(addr, size, new, len(calls), pc)
                if imm & 1:
                    regs[src] = old
            pc += 1
        else:
            raise ModelBug('opcode %#x not modelled' % op)
