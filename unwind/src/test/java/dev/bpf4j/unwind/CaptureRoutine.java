package dev.bpf4j.unwind;

import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.PageManager;

import java.util.List;

/**
 * A tiny native routine, {@code void capture(long *buf)}, that records the registers at its own
 * instruction 7 (rip, rsp, rbp), copies the stack from rsp up to {@code buf[3]} (at most
 * {@code buf[4]} bytes) into {@code buf + 56}, then calls {@code buf[6]} (when not 0) with
 * {@code buf}, so a Java upcall can unwind the live stack while the callers' frames still exist.
 * Written RW, then flipped to RX (W^X).
 */
final class CaptureRoutine implements AutoCloseable {
    static final int IP = 0, SP = 8, BP = 16, STACK_TOP = 24, MAX_COPY = 32, COPIED = 40, UPCALL = 48, DATA = 56;
    /** Offset of the instruction whose address is stored as rip. */
    static final int CAPTURED_IP = 7;

    private static final byte[] CODE = bytes(
            0x48, 0x8d, 0x05, 0x00, 0x00, 0x00, 0x00, // 00: lea rax, [rip]          ; rax = capture + 7
            0x48, 0x89, 0x07,                         // 07: mov [rdi], rax
            0x48, 0x89, 0x67, 0x08,                   // 0a: mov [rdi+8], rsp
            0x48, 0x89, 0x6f, 0x10,                   // 0e: mov [rdi+16], rbp
            0x48, 0x8b, 0x4f, 0x18,                   // 12: mov rcx, [rdi+24]        ; top of stack
            0x48, 0x29, 0xe1,                         // 16: sub rcx, rsp
            0x48, 0x3b, 0x4f, 0x20,                   // 19: cmp rcx, [rdi+32]
            0x76, 0x04,                               // 1d: jbe 23
            0x48, 0x8b, 0x4f, 0x20,                   // 1f: mov rcx, [rdi+32]        ; at most buf[4] bytes
            0x48, 0x89, 0x4f, 0x28,                   // 23: mov [rdi+40], rcx
            0x49, 0x89, 0xf8,                         // 27: mov r8, rdi
            0x48, 0x89, 0xe6,                         // 2a: mov rsi, rsp
            0x48, 0x83, 0xc7, 0x38,                   // 2d: add rdi, 56
            0xf3, 0xa4,                               // 31: rep movsb
            0x49, 0x8b, 0x40, 0x30,                   // 33: mov rax, [r8+48]
            0x48, 0x85, 0xc0,                         // 37: test rax, rax
            0x74, 0x0d,                               // 3a: jz 49
            0x48, 0x83, 0xec, 0x08,                   // 3c: sub rsp, 8               ; 16-byte alignment for the upcall
            0x4c, 0x89, 0xc7,                         // 40: mov rdi, r8
            0xff, 0xd0,                               // 43: call rax
            0x48, 0x83, 0xc4, 0x08,                   // 45: add rsp, 8
            0xc3);                                    // 49: ret

    private final PageManager pm = PageManager.getInstance();
    final long address;

    CaptureRoutine() {
        address = pm.allocatePages(1, PageManager.PROT_READ | PageManager.PROT_WRITE);
        if (address == 0) throw new IllegalStateException("cannot allocate a code page");
        MemoryIO.getInstance().putByteArray(address, CODE, 0, CODE.length);
        pm.protectPages(address, 1, PageManager.PROT_READ | PageManager.PROT_EXEC);
    }

    /** Rows: the return address is at [rsp] until the upcall's {@code sub rsp, 8}, and at the {@code ret}. */
    CodeRegion region() {
        return new CodeRegion(address, CODE.length, "capture_regs", "test", List.of(
                new UnwindRow(0, 0x3c, CfaRule.RETURN_AT_SP), new UnwindRow(0x49, 0x4a, CfaRule.RETURN_AT_SP)));
    }

    @Override public void close() { pm.freePages(address, 1); }

    private static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) b[i] = (byte) v[i];
        return b;
    }
}
