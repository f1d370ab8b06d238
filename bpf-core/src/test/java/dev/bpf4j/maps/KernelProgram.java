package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A tiny BPF program loaded into the kernel (socket filter) and run once with BPF_PROG_TEST_RUN: the
 * oracle for helper results. Instructions are encoded here directly (opcode, dst|src<<4, off, imm).
 */
final class KernelProgram {
    private static final int PROG_LOAD = 5, PROG_TEST_RUN = 10, SOCKET_FILTER = 1;
    private final List<long[]> insns = new ArrayList<>(); // {code, dst, src, off, imm}

    KernelProgram insn(int code, int dst, int src, int off, int imm) {
        insns.add(new long[] {code, dst, src, off, imm});
        return this;
    }

    KernelProgram stW(int off, int imm) { return insn(0x62, 10, 0, off, imm); }
    KernelProgram stDw(int off, int imm) { return insn(0x7a, 10, 0, off, imm); }
    KernelProgram mov(int dst, int imm) { return insn(0xb7, dst, 0, 0, imm); }
    KernelProgram movr(int dst, int src) { return insn(0xbf, dst, src, 0, 0); }
    KernelProgram add(int dst, int imm) { return insn(0x07, dst, 0, 0, imm); }
    KernelProgram call(int helper) { return insn(0x85, 0, 0, 0, helper); }
    KernelProgram exit() { return insn(0x95, 0, 0, 0, 0); }
    KernelProgram jeq(int dst, int imm, int off) { return insn(0x15, dst, 0, off, imm); }
    KernelProgram jne(int dst, int imm, int off) { return insn(0x55, dst, 0, off, imm); }
    KernelProgram ldxW(int dst, int src, int off) { return insn(0x61, dst, src, off, 0); }

    /** {@code lddw dst, map} with src = BPF_PSEUDO_MAP_FD. */
    KernelProgram ldMap(int dst, int fd) {
        insn(0x18, dst, 1, 0, fd);
        return insn(0, 0, 0, 0, 0);
    }

    /** Loads and runs the program once; its r0 (low 32 bits), or throws with the verifier log. */
    int run() {
        ByteBuffer code = ByteBuffer.allocate(insns.size() * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long[] i : insns) code.put((byte) i[0]).put((byte) (i[1] | i[2] << 4)).putShort((short) i[3]).putInt((int) i[4]);
        long prog = NativeMemory.allocate(code.capacity()), license = NativeMemory.allocate(4), log = NativeMemory.allocate(65536);
        long attr = NativeMemory.allocate(128), data = NativeMemory.allocate(64);
        try {
            NativeMemory.write(prog, code.array(), 0, code.capacity());
            NativeMemory.write(license, "GPL\0".getBytes(), 0, 4);
            NativeMemory.putInt(attr, SOCKET_FILTER);
            NativeMemory.putInt(attr + 4, insns.size());
            NativeMemory.putLong(attr + 8, prog);
            NativeMemory.putLong(attr + 16, license);
            NativeMemory.putInt(attr + 24, 1);
            NativeMemory.putInt(attr + 28, 65536);
            NativeMemory.putLong(attr + 32, log);
            long fd = KernelMap.bpf(PROG_LOAD, attr);
            if (fd < 0) {
                byte[] l = NativeMemory.read(log, 4096);
                int n = 0;
                while (n < l.length && l[n] != 0) n++;
                throw new IllegalStateException("kernel refused the program: " + Errno.name((int) fd) + "\n" + new String(l, 0, n));
            }
            try {
                NativeMemory.setMemory(attr, 128, (byte) 0);
                NativeMemory.putInt(attr, (int) fd);
                NativeMemory.putInt(attr + 8, 64);
                NativeMemory.putLong(attr + 16, data);
                NativeMemory.putInt(attr + 32, 1);
                long r = KernelMap.bpf(PROG_TEST_RUN, attr);
                if (r < 0) throw new IllegalStateException("BPF_PROG_TEST_RUN failed: " + Errno.name((int) r));
                return NativeMemory.getInt(attr + 4);
            } finally {
                KernelMap.close((int) fd);
            }
        } finally {
            for (long a : new long[] {prog, license, log, attr, data}) NativeMemory.free(a);
        }
    }
}
