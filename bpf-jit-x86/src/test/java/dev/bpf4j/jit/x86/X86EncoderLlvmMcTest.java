package dev.bpf4j.jit.x86;

import dev.bpf4j.unwind.ExternalTool;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Every instruction form the encoder emits must match the bytes {@code llvm-mc -show-encoding} gives. */
class X86EncoderLlvmMcTest {
    private record Case(String asm, Consumer<X86Encoder> emit) {}

    private static final X86Reg[] SOME = {X86Reg.RAX, X86Reg.RCX, X86Reg.RDX, X86Reg.RBX, X86Reg.RSP, X86Reg.RBP, X86Reg.RSI, X86Reg.RDI,
            X86Reg.R8, X86Reg.R10, X86Reg.R11, X86Reg.R12, X86Reg.R13, X86Reg.R15};
    private static final X86Reg[] BASES = {X86Reg.RAX, X86Reg.RSP, X86Reg.RBP, X86Reg.RDI, X86Reg.R10, X86Reg.R12, X86Reg.R13};
    private static final int[] DISPS = {0, 8, -8, 127, -128, 128, -512, 0x12345};

    private static String mem(String ptr, Mem m) {
        return ptr + " ptr [" + m.base().name64() + (m.disp() < 0 ? " - " + (-m.disp()) : " + " + m.disp()) + "]";
    }

    private static String r(boolean w, X86Reg r) { return w ? r.name64() : r.name32(); }

    private static String r8(X86Reg r) {
        switch (r) {
            case RAX: return "al"; case RCX: return "cl"; case RDX: return "dl"; case RBX: return "bl";
            case RSP: return "spl"; case RBP: return "bpl"; case RSI: return "sil"; case RDI: return "dil";
            default: return r.name64() + "b";
        }
    }

    private static String r16(X86Reg r) {
        if (r.extended()) return r.name64() + "w";
        return r.name64().substring(1);
    }

    private static List<Case> cases() {
        List<Case> c = new ArrayList<>();
        for (boolean w : new boolean[]{true, false}) {
            for (X86Reg d : SOME) {
                for (X86Reg s : SOME) {
                    c.add(new Case("mov " + r(w, d) + ", " + r(w, s), e -> e.movRR(w, d, s)));
                    for (AluOp op : AluOp.values()) c.add(new Case(op.mnemonic() + " " + r(w, d) + ", " + r(w, s), e -> e.aluRR(op, w, d, s)));
                    c.add(new Case("test " + r(w, d) + ", " + r(w, s), e -> e.testRR(w, d, s)));
                    c.add(new Case("imul " + r(w, d) + ", " + r(w, s), e -> e.imulRR(w, d, s)));
                    c.add(new Case("movsx " + r(w, d) + ", " + r8(s), e -> e.movsx8(w, d, s)));
                    c.add(new Case("movsx " + r(w, d) + ", " + r16(s), e -> e.movsx16(w, d, s)));
                    for (int imm : new int[]{3, -100, 1000, -70000}) {
                        c.add(new Case("imul " + r(w, d) + ", " + r(w, s) + ", " + imm, e -> e.imulRRI(w, d, s, imm)));
                    }
                }
                for (int imm : new int[]{0, 1, -1, 127, -128, 128, 0x7fffffff, Integer.MIN_VALUE}) {
                    for (AluOp op : AluOp.values()) c.add(new Case(op.mnemonic() + " " + r(w, d) + ", " + imm, e -> e.aluRI(op, w, d, imm)));
                    c.add(new Case("test " + r(w, d) + ", " + imm, e -> e.testRI(w, d, imm)));
                }
                for (Shift s : Shift.values()) {
                    String mn = s.name().toLowerCase();
                    c.add(new Case(mn + " " + r(w, d) + ", cl", e -> e.shiftCl(s, w, d)));
                    for (int n : new int[]{1, 2, 31}) c.add(new Case(mn + " " + r(w, d) + ", " + n, e -> e.shiftImm(s, w, d, n)));
                }
                c.add(new Case("neg " + r(w, d), e -> e.neg(w, d)));
                c.add(new Case("div " + r(w, d), e -> e.div(w, false, d)));
                c.add(new Case("idiv " + r(w, d), e -> e.div(w, true, d)));
                c.add(new Case("bswap " + r(w, d), e -> e.bswap(w, d)));
            }
        }
        for (X86Reg d : SOME) {
            for (X86Reg s : SOME) {
                c.add(new Case("movzx " + d.name32() + ", " + r16(s), e -> e.movzx16(d, s)));
                c.add(new Case("movsxd " + d.name64() + ", " + s.name32(), e -> e.movsxd(d, s)));
            }
            c.add(new Case("mov " + d.name32() + ", 305419896", e -> e.movImm32(d, 0x12345678)));
            c.add(new Case("mov " + d.name64() + ", -2", e -> e.movImmSx(d, -2)));
            c.add(new Case("movabs " + d.name64() + ", 81985529216486895", e -> e.movabs(d, 0x0123456789abcdefL)));
            c.add(new Case("rol " + r16(d) + ", 8", e -> e.rol16By8(d)));
            c.add(new Case("push " + d.name64(), e -> e.push(d)));
            c.add(new Case("pop " + d.name64(), e -> e.pop(d)));
            c.add(new Case("call " + d.name64(), e -> e.callR(d)));
            for (X86Reg b : BASES) {
                for (int disp : DISPS) {
                    Mem m = Mem.of(b, disp);
                    c.add(new Case("mov " + d.name64() + ", " + mem("qword", m), e -> e.load(true, d, m)));
                    c.add(new Case("mov " + d.name32() + ", " + mem("dword", m), e -> e.load(false, d, m)));
                    c.add(new Case("movzx " + d.name32() + ", " + mem("byte", m), e -> e.loadZx8(d, m)));
                    c.add(new Case("movzx " + d.name32() + ", " + mem("word", m), e -> e.loadZx16(d, m)));
                    c.add(new Case("movsx " + d.name64() + ", " + mem("byte", m), e -> e.loadSx8(d, m)));
                    c.add(new Case("movsx " + d.name64() + ", " + mem("word", m), e -> e.loadSx16(d, m)));
                    c.add(new Case("movsxd " + d.name64() + ", " + mem("dword", m), e -> e.loadSx32(d, m)));
                    c.add(new Case("mov " + mem("byte", m) + ", " + r8(d), e -> e.store(1, m, d)));
                    c.add(new Case("mov " + mem("word", m) + ", " + r16(d), e -> e.store(2, m, d)));
                    c.add(new Case("mov " + mem("dword", m) + ", " + d.name32(), e -> e.store(4, m, d)));
                    c.add(new Case("mov " + mem("qword", m) + ", " + d.name64(), e -> e.store(8, m, d)));
                    c.add(new Case("lea " + d.name64() + ", " + mem("qword", m), e -> e.lea(d, m)));
                    for (AluOp op : AluOp.values()) {
                        c.add(new Case(op.mnemonic() + " " + d.name64() + ", " + mem("qword", m), e -> e.aluRM(op, true, d, m)));
                        c.add(new Case("lock " + op.mnemonic() + " " + mem("dword", m) + ", " + d.name32(), e -> e.aluMR(op, false, m, d, true)));
                        c.add(new Case(op.mnemonic() + " " + mem("qword", m) + ", " + d.name64(), e -> e.aluMR(op, true, m, d, false)));
                    }
                    c.add(new Case("lock xadd " + mem("qword", m) + ", " + d.name64(), e -> e.lockXadd(true, m, d)));
                    c.add(new Case("lock xadd " + mem("dword", m) + ", " + d.name32(), e -> e.lockXadd(false, m, d)));
                    c.add(new Case("xchg " + mem("qword", m) + ", " + d.name64(), e -> e.xchg(true, m, d)));
                    c.add(new Case("xchg " + mem("dword", m) + ", " + d.name32(), e -> e.xchg(false, m, d)));
                    c.add(new Case("lock cmpxchg " + mem("qword", m) + ", " + d.name64(), e -> e.lockCmpxchg(true, m, d)));
                    c.add(new Case("lock cmpxchg " + mem("dword", m) + ", " + d.name32(), e -> e.lockCmpxchg(false, m, d)));
                }
            }
        }
        for (X86Reg b : BASES) {
            for (int disp : DISPS) {
                Mem m = Mem.of(b, disp);
                c.add(new Case("mov " + mem("byte", m) + ", -3", e -> e.storeImm(1, m, -3)));
                c.add(new Case("mov " + mem("word", m) + ", 4660", e -> e.storeImm(2, m, 0x1234)));
                c.add(new Case("mov " + mem("dword", m) + ", -5", e -> e.storeImm(4, m, -5)));
                c.add(new Case("mov " + mem("qword", m) + ", 305419896", e -> e.storeImm(8, m, 0x12345678)));
                for (int x : new int[]{0, 7, 8, 15}) c.add(new Case("movups " + mem("xmmword", m) + ", xmm" + x, e -> e.movupsStore(m, x)));
                for (AluOp op : AluOp.values()) {
                    c.add(new Case(op.mnemonic() + " " + mem("qword", m) + ", 1", e -> e.aluMI(op, true, m, 1)));
                    c.add(new Case(op.mnemonic() + " " + mem("dword", m) + ", 100000", e -> e.aluMI(op, false, m, 100000)));
                }
            }
        }
        for (int x : new int[]{0, 7, 8, 15}) c.add(new Case("xorps xmm" + x + ", xmm" + x, e -> e.xorpsSelf(x)));
        c.add(new Case("cqo", e -> e.signExtendAx(true)));
        c.add(new Case("cdq", e -> e.signExtendAx(false)));
        c.add(new Case("leave", X86Encoder::leave));
        c.add(new Case("ret", X86Encoder::ret));
        return c;
    }

    @Test
    void encodingsMatchLlvmMc() throws Exception {
        assumeTrue(ExternalTool.onPath("llvm-mc"), "llvm-mc is not on PATH");
        List<Case> cases = cases();
        StringBuilder src = new StringBuilder(".intel_syntax noprefix\n");
        for (Case k : cases) src.append(k.asm()).append('\n');
        List<String> expected = runLlvmMc(src.toString());
        assertThat(expected).hasSize(cases.size());
        for (int i = 0; i < cases.size(); i++) {
            CodeBuffer b = new CodeBuffer();
            cases.get(i).emit().accept(new X86Encoder(b));
            assertThat(hex(b.toByteArray())).as(cases.get(i).asm()).isEqualTo(expected.get(i));
        }
    }

    @Test
    void branchesMatchLlvmMc() throws Exception {
        assumeTrue(ExternalTool.onPath("llvm-mc") && ExternalTool.onPath("llvm-objcopy"), "llvm-mc/llvm-objcopy are not on PATH");
        // Short branches to t1 (0x20), near ones to t2 (0x200): llvm-mc picks the same sizes.
        CodeBuffer b = new CodeBuffer();
        X86Encoder e = new X86Encoder(b);
        e.jmpRel8(0x20);
        e.jccRel8(Cond.LE, 0x20);
        e.jccRel32(Cond.A, 0x200);
        e.jmpRel32(0x200);
        e.callRel32(0x200);
        while (b.size() < 0x200) b.emit8(0x90);
        e.ret();
        String src = ".intel_syntax noprefix\njmp t1\njle t1\nja t2\njmp t2\ncall t2\n.fill 12,1,0x90\n"
                + "t1:\n.fill 480,1,0x90\nt2:\nret\n";
        Path s = Files.createTempFile("br", ".s"), o = Files.createTempFile("br", ".o"), bin = Files.createTempFile("br", ".bin");
        try {
            Files.writeString(s, src);
            run("llvm-mc", "-triple=x86_64", "-filetype=obj", "-o", o.toString(), s.toString());
            run("llvm-objcopy", "-O", "binary", "--only-section=.text", o.toString(), bin.toString());
            assertThat(hex(b.toByteArray())).isEqualTo(hex(Files.readAllBytes(bin)));
        } finally {
            Files.deleteIfExists(s); Files.deleteIfExists(o); Files.deleteIfExists(bin);
        }
    }

    @Test
    void paddingIsWhatItSaysAndDisassemblesAsNops() throws Exception {
        for (int n = 0; n <= 40; n++) {
            CodeBuffer b = new CodeBuffer();
            new X86Encoder(b).nop(n);
            assertThat(b.size()).as("nop(%d)", n).isEqualTo(n);
        }
        CodeBuffer b = new CodeBuffer();
        X86Encoder e = new X86Encoder(b);
        e.ret();
        e.alignTo(32);
        assertThat(b.size()).isEqualTo(32);
        e.alignTo(32);
        assertThat(b.size()).as("already aligned: no padding").isEqualTo(32);
        assumeTrue(ExternalTool.onPath("llvm-mc"), "llvm-mc is not on PATH");
        for (int n = 1; n <= 31; n++) {
            CodeBuffer p = new CodeBuffer();
            new X86Encoder(p).nop(n);
            StringBuilder bytes = new StringBuilder();
            for (byte x : p.toByteArray()) bytes.append(String.format("0x%02x ", x & 0xff));
            Path in = Files.createTempFile("nop", ".txt");
            try {
                Files.writeString(in, bytes + "\n");
                String out = run("llvm-mc", "-triple=x86_64", "--disassemble", "-output-asm-variant=1", in.toString());
                List<String> insns = out.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith(".")).toList();
                assertThat(insns).as("nop(%d): %s", n, out).isNotEmpty().hasSizeLessThanOrEqualTo((n + 8) / 9)
                        .allSatisfy(l -> assertThat(l).matches("(nop|xchg ax, ax)\\b.*"));
            } finally {
                Files.delete(in);
            }
        }
    }

    /** Runs {@code cmd}, which must finish within a minute with status 0; its combined output. */
    private static String run(String... cmd) {
        ExternalTool.Result r = ExternalTool.exec(null, Duration.ofSeconds(60), List.of(cmd));
        assertThat(r.timedOut()).isFalse();
        assertThat(r.status()).as(r.output()).isZero();
        return r.output();
    }

    private static final Pattern ENC = Pattern.compile("encoding: \\[([^\\]]*)\\]");

    private static List<String> runLlvmMc(String src) throws IOException {
        Path in = Files.createTempFile("enc", ".s");
        String out;
        try {
            Files.writeString(in, src);
            out = run("llvm-mc", "-triple=x86_64", "-show-encoding", in.toString());
        } finally {
            Files.delete(in);
        }
        List<String> enc = new ArrayList<>();
        Matcher m = ENC.matcher(out);
        while (m.find()) enc.add(m.group(1).replace("0x", "").replace(",", ""));
        return enc;
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x & 0xff));
        return s.toString();
    }
}
