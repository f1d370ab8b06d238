package dev.bpf4j.fuzz;

import dev.bpf4j.btf.Btf;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The smallest {@code .BTF} that lets Linux load a program with callbacks: it refuses a
 * {@code BPF_PSEUDO_FUNC} without func_info ("missing btf func_info"). Type 1 is {@code int}, type 2 a
 * {@code FUNC_PROTO} returning int with no parameters, types 3.. one static {@code FUNC} per function
 * (type id of function i = {@link #typeId}).
 */
final class FuncBtf {
    private FuncBtf() {}

    static final int BTF_KIND_INT = 1, BTF_KIND_FUNC = 12, BTF_KIND_FUNC_PROTO = 13;

    static int typeId(int function) { return 3 + function; }

    static String name(int function) { return function == 0 ? "fuzz" : "f" + function; }

    static Btf of(int functions) {
        ByteArrayOutputStream strings = new ByteArrayOutputStream();
        strings.write(0);
        int intName = add(strings, "int");
        ByteBuffer types = ByteBuffer.allocate(16 + 12 + 12 * functions).order(ByteOrder.LITTLE_ENDIAN);
        types.putInt(intName).putInt(BTF_KIND_INT << 24).putInt(4).putInt(1 << 24 | 32); // signed 32-bit int
        types.putInt(0).putInt(BTF_KIND_FUNC_PROTO << 24).putInt(1);                       // int (void)
        for (int f = 0; f < functions; f++) types.putInt(add(strings, name(f))).putInt(BTF_KIND_FUNC << 24).putInt(2);
        byte[] t = types.array(), s = strings.toByteArray();
        ByteBuffer b = ByteBuffer.allocate(24 + t.length + s.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 0xeb9f).put((byte) 1).put((byte) 0).putInt(24)
                .putInt(0).putInt(t.length).putInt(t.length).putInt(s.length).put(t).put(s);
        return Btf.parse(b.array());
    }

    private static int add(ByteArrayOutputStream strings, String s) {
        int off = strings.size();
        strings.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
        strings.write(0);
        return off;
    }
}
