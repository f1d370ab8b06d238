package dev.bpf4j.unwind.perf;

import com.kenai.jffi.MemoryIO;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class JitDumpWriterTest {
    private static final int PID = (int) ProcessHandle.current().pid();

    @Test void headerLoadRecordsWithLiveCodeAndCloseFollowTheSpec(@TempDir Path dir) throws Exception {
        MemoryIO io = MemoryIO.getInstance();
        byte[] codeA = {0x55, 0x48, (byte) 0x89, (byte) 0xe5, (byte) 0xc9, (byte) 0xc3}; // push rbp; mov rbp, rsp; leave; ret
        byte[] codeB = {(byte) 0x90, (byte) 0xc3};
        long mem = io.allocateMemory(64, true);
        try {
            io.putByteArray(mem, codeA, 0, codeA.length);
            io.putByteArray(mem + 16, codeB, 0, codeB.length);
            CodeMap map = new CodeMap();
            map.register(PerfMapWriterTest.region(mem, codeA.length, "bpf_prog_00112233aabbccdd_outer"));
            long before = System.nanoTime();
            Path file;
            try (JitDumpWriter w = JitDumpWriter.create(dir)) {
                file = w.file();
                assertThat(mappedReadExec(file)).as("jitdump mapped r-x so perf record sees it").isTrue();
                map.addListener(w);
                map.register(PerfMapWriterTest.region(mem + 16, codeB.length, "bpf_prog_44556677eeff0011_F"));
                map.removeListener(w);
            }
            long after = System.nanoTime();
            assertThat(file.getFileName().toString()).isEqualTo("jit-" + PID + ".dump");
            assertThat(mappedReadExec(file)).isFalse();

            ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            assertThat(b.getInt()).isEqualTo(0x4A695444);
            assertThat(b.getInt()).isEqualTo(1);
            assertThat(b.getInt()).isEqualTo(40);
            assertThat(b.getInt()).isEqualTo(62);
            assertThat(b.getInt()).isZero();
            assertThat(b.getInt()).isEqualTo(PID);
            long headerTime = b.getLong();
            assertThat(headerTime).isBetween(before, after);
            assertThat(b.getLong()).isZero();

            long t1 = expectLoad(b, mem, codeA, 0, "bpf_prog_00112233aabbccdd_outer");
            long t2 = expectLoad(b, mem + 16, codeB, 1, "bpf_prog_44556677eeff0011_F");
            assertThat(t1).isBetween(headerTime, t2);
            assertThat(b.getInt()).isEqualTo(3); // JIT_CODE_CLOSE
            assertThat(b.getInt()).isEqualTo(16);
            assertThat(b.getLong()).isBetween(t2, after);
            assertThat(b.hasRemaining()).isFalse();
        } finally {
            io.freeMemory(mem);
        }
    }

    @Test void aSuppliedCodeOfTheWrongSizeIsRefused(@TempDir Path dir) {
        try (JitDumpWriter w = new JitDumpWriter(dir, r -> new byte[1])) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> w.registered(PerfMapWriterTest.region(0x1000, 4, "x")))
                    .hasMessageContaining("x has 4 bytes but 1 were supplied");
        }
    }

    private static long expectLoad(ByteBuffer b, long addr, byte[] code, long index, String name) {
        int start = b.position();
        assertThat(b.getInt()).as("JIT_CODE_LOAD").isZero();
        int total = b.getInt();
        long time = b.getLong();
        assertThat(b.getInt()).isEqualTo(PID);
        assertThat(b.getInt()).as("tid").isPositive();
        assertThat(b.getLong()).as("vma").isEqualTo(addr);
        assertThat(b.getLong()).as("code_addr").isEqualTo(addr);
        assertThat(b.getLong()).as("code_size").isEqualTo(code.length);
        assertThat(b.getLong()).as("code_index").isEqualTo(index);
        byte[] n = new byte[name.length()];
        b.get(n);
        assertThat(new String(n, StandardCharsets.UTF_8)).isEqualTo(name);
        assertThat(b.get()).isZero();
        byte[] c = new byte[code.length];
        b.get(c);
        assertThat(Arrays.equals(c, code)).as("code bytes").isTrue();
        assertThat(b.position() - start).isEqualTo(total);
        return time;
    }

    private static boolean mappedReadExec(Path file) throws Exception {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .anyMatch(l -> l.endsWith(file.toString()) && l.split("\\s+")[1].startsWith("r-x"));
    }
}
