package dev.bpf4j.interp;

import dev.bpf4j.isa.AluOps;

import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HotSpot never JIT-compiles a method whose bytecode exceeds 8,000 bytes (-XX:-DontCompileHugeMethods
 * is off by default): the dispatch loop must stay below, or the interpreter runs ~50x slower.
 */
class DispatchMethodSizeTest {
    static final int HUGE_METHOD_LIMIT = 8000;

    @Test
    void dispatchLoopIsNotAHugeMethod() throws IOException {
        Map<String, Integer> hot = codeLengths(HotLoop.class);
        assertThat(hot).containsKey("run");
        assertThat(hot.get("run")).as("bytecode bytes of HotLoop.run").isLessThan(HUGE_METHOD_LIMIT).isGreaterThan(3000);
        Map<String, Integer> driver = codeLengths(Interpreter.class);
        assertThat(driver).containsKey("execute");
        assertThat(driver.get("execute")).as("bytecode bytes of Interpreter.execute").isLessThan(HUGE_METHOD_LIMIT).isGreaterThan(500);
    }

    @Test
    void parserReadsKnownMethods() throws IOException {
        Map<String, Integer> sizes = codeLengths(AluOps.class);
        // lload_0, lload_2, ladd, lreturn
        assertThat(sizes.get("add64")).isEqualTo(4);
    }

    /** Code attribute length of every method of {@code c}, by name (a minimal JVMS 4 class-file reader). */
    static Map<String, Integer> codeLengths(Class<?> c) throws IOException {
        try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
            DataInputStream d = new DataInputStream(in);
            if (d.readInt() != 0xCAFEBABE) throw new IOException("not a class file");
            d.readUnsignedShort();
            d.readUnsignedShort();
            int cpCount = d.readUnsignedShort();
            String[] utf8 = new String[cpCount];
            for (int i = 1; i < cpCount; i++) {
                int tag = d.readUnsignedByte();
                switch (tag) {
                    case 1: utf8[i] = d.readUTF(); break;
                    case 3: case 4: d.skipBytes(4); break;
                    case 5: case 6: d.skipBytes(8); i++; break; // long/double take two slots
                    case 7: case 8: case 16: case 19: case 20: d.skipBytes(2); break;
                    case 9: case 10: case 11: case 12: case 17: case 18: d.skipBytes(4); break;
                    case 15: d.skipBytes(3); break;
                    default: throw new IOException("constant pool tag " + tag);
                }
            }
            d.skipBytes(6); // access, this, super
            d.skipBytes(2 * d.readUnsignedShort()); // interfaces
            int fields = d.readUnsignedShort();
            for (int i = 0; i < fields; i++) {
                d.skipBytes(6);
                skipAttributes(d);
            }
            Map<String, Integer> out = new HashMap<>();
            int methods = d.readUnsignedShort();
            for (int i = 0; i < methods; i++) {
                d.skipBytes(2);
                String name = utf8[d.readUnsignedShort()];
                d.skipBytes(2);
                int attrs = d.readUnsignedShort();
                for (int a = 0; a < attrs; a++) {
                    String attr = utf8[d.readUnsignedShort()];
                    int len = d.readInt();
                    if (attr.equals("Code")) {
                        d.skipBytes(4); // max_stack, max_locals
                        int codeLength = d.readInt();
                        out.merge(name, codeLength, Math::max);
                        d.skipBytes(len - 8);
                    } else {
                        d.skipBytes(len);
                    }
                }
            }
            return out;
        }
    }

    private static void skipAttributes(DataInputStream d) throws IOException {
        int n = d.readUnsignedShort();
        for (int i = 0; i < n; i++) {
            d.skipBytes(2);
            d.skipBytes(d.readInt());
        }
    }
}
