package dev.bpf4j.kernel.object;

import dev.bpf4j.btf.FuncInfo;
import dev.bpf4j.btf.LineInfo;
import dev.bpf4j.object.ProgramSpec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A linked program's {@code .BTF.ext} records as BPF_PROG_LOAD takes them, libbpf-style: one
 * {@code struct bpf_func_info} per function ({@code insn_off}, {@code type_id}) and one
 * {@code struct bpf_line_info} per line record ({@code insn_off}, {@code file_name_off},
 * {@code line_off}, {@code line << 10 | col}), the names being offsets into the BTF the encoder writes.
 */
final class ProgramBtf {
    private ProgramBtf() {}

    static byte[] funcInfo(ProgramSpec p) {
        ByteBuffer b = ByteBuffer.allocate(8 * p.funcInfos().size()).order(ByteOrder.LITTLE_ENDIAN);
        for (FuncInfo f : p.funcInfos()) b.putInt(f.insnIndex()).putInt(f.typeId());
        return b.array();
    }

    static byte[] lineInfo(ProgramSpec p, BtfEncoder btf) {
        ByteBuffer b = ByteBuffer.allocate(16 * p.lineInfos().size()).order(ByteOrder.LITTLE_ENDIAN);
        for (LineInfo l : p.lineInfos()) {
            b.putInt(l.insnIndex()).putInt(btf.stringOffset(l.fileName())).putInt(btf.stringOffset(l.sourceLine()))
                    .putInt(l.line() << 10 | (l.column() & 0x3ff));
        }
        return b.array();
    }
}
