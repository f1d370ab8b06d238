#!/usr/bin/env python3
"""Cross-checks the corpus against the Linux kernel (needs root and bpf()): every case that
expects a result, has no memory block and no calls is loaded as a socket filter and run with
BPF_PROG_TEST_RUN. The kernel returns only the low 32 bits of r0, so each program runs twice:
as is, and with every exit redirected to an epilogue 'rsh r0, 32; exit'. r1 and r2 are zeroed
first (the kernel passes a context in r1). Programs the kernel's verifier refuses (immediate
zero divisors, high immediate shifts, loops it cannot bound) are counted, not compared.

usage: sudo python3 it-tests/tools/conformance/kernel_check.py   (prints a summary; exit 1 on a mismatch)
"""
import ctypes
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bpfasm  # noqa: E402
from corpus import CASES  # noqa: E402
import corpus_jmp, corpus_mem, corpus_call  # noqa: E402,F401
import refvm  # noqa: E402

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
SYS_BPF, BPF_PROG_LOAD, BPF_PROG_TEST_RUN, SOCKET_FILTER = 321, 5, 10, 1


def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr, 256)
    r = libc.syscall(SYS_BPF, cmd, buf, 256)
    return r, ctypes.get_errno(), buf


def run_in_kernel(slots):
    raw = b''.join(struct.pack('<Q', bpfasm.encode_raw(s)) for s in slots)
    insns, lic, log = ctypes.create_string_buffer(raw), ctypes.create_string_buffer(b'GPL'), ctypes.create_string_buffer(1 << 16)
    attr = struct.pack('<IIQQIIQII', SOCKET_FILTER, len(slots), ctypes.addressof(insns), ctypes.addressof(lic),
                       1, 1 << 16, ctypes.addressof(log), 0, 0)
    fd, err, _ = bpf(BPF_PROG_LOAD, attr)
    if fd < 0:
        lines = [l for l in log.value.decode(errors='replace').strip().split('\n') if l and not l.startswith('processed')]
        return None, (lines[-1] if lines else os.strerror(err))
    try:
        data = ctypes.create_string_buffer(64)
        r, err, buf = bpf(BPF_PROG_TEST_RUN, struct.pack('<IIIIQQII', fd, 0, 64, 0, ctypes.addressof(data), 0, 1, 0))
        if r < 0:
            return None, 'test_run: ' + os.strerror(err)
        return struct.unpack_from('<I', buf.raw, 4)[0], None
    finally:
        os.close(fd)


def high_half(slots):
    """Every exit becomes a jump to 'rsh r0, 32; exit' appended at the end (same slot count before it)."""
    n = len(slots)
    out = [(0x05, 0, 0, n - pc - 1, 0) if s[0] == 0x95 else s for pc, s in enumerate(slots)]
    return out + [(0x77, 0, 0, 0, 32), (0x95, 0, 0, 0, 0)]


def main():
    agree, rejected, mismatches = 0, [], []
    for c in CASES:
        if c.mem is not None or c.error:
            continue
        # -- raw is the program where a case has both (its asm is the listing)
        body = [bpfasm.decode_raw(w) for w in c.raw] if c.raw is not None else bpfasm.assemble(c.asm)
        if any(op & 0x07 == 0x05 and op & 0xf0 == 0x80 for op, _, _, _, _ in body):
            continue  # calls and callx: no helper 5 in the kernel
        slots = [(0xb7, 1, 0, 0, 0), (0xb7, 2, 0, 0, 0)] + body
        want = refvm.run(slots)
        lo, why = run_in_kernel(slots)
        hi, why2 = run_in_kernel(high_half(slots)) if why is None else (None, why)
        if why or why2:
            rejected.append('%s/%s: %s' % (c.group, c.name, why or why2))
            continue
        got = (hi << 32) | lo
        if got == want:
            agree += 1
        else:
            mismatches.append('%s/%s: corpus 0x%x, kernel 0x%x' % (c.group, c.name, want, got))
    for m in mismatches:
        print('MISMATCH ' + m)
    for r in rejected:
        print('kernel rejected ' + r)
    print('%d agree with the kernel, %d differ, %d refused by the kernel verifier' % (agree, len(mismatches), len(rejected)))
    sys.exit(1 if mismatches else 0)


if __name__ == '__main__':
    main()
