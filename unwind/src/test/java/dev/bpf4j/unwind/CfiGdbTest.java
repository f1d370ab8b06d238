package dev.bpf4j.unwind;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * gdb as the oracle: cfimain.c + cfichain.c built as one executable (gcc -O2 -fomit-frame-pointer)
 * runs under {@code gdb -batch}, which prints its backtrace at each stop in {@code record}; in the
 * same run, record saves its registers, its stack and the process's maps. bpf4j's walk over each
 * saved stack must give exactly gdb's frames (every real frame's pc; gdb's inlined frames share
 * one) from the first caller to {@code _start}: a → b → c, and qsort's recursion inside libc.
 */
class CfiGdbTest {
    private static final Pattern FRAME = Pattern.compile("^#(\\d+)\\s+0x([0-9a-f]+) in (\\S+)");

    @Test
    void theWalkOverARecordedStackIsGdbsBacktrace() throws IOException {
        Assumptions.assumeTrue(ExternalTool.available("gcc") && ExternalTool.onPath("gdb"), "gcc or gdb is not installed");
        Path dir = Files.createTempDirectory("bpf4j-cfigdb-");
        try {
            for (String f : List.of("cfichain.c", "cfimain.c")) {
                try (InputStream in = getClass().getResourceAsStream("/dev/bpf4j/unwind/cfi/" + f)) {
                    Files.write(dir.resolve(f), in.readAllBytes());
                }
            }
            Path exe = dir.resolve("cfichain");
            ExternalTool.run(List.of("gcc", "-O2", "-fomit-frame-pointer", "-pthread", "-o", exe.toString(),
                    dir.resolve("cfichain.c").toString(), dir.resolve("cfimain.c").toString()));
            Path out = dir.resolve("out");
            ExternalTool.Result gdb = ExternalTool.exec(dir, Duration.ofSeconds(120), List.of("gdb", "-batch", "-nx",
                    "-ex", "set backtrace past-main on", "-ex", "break record", "-ex", "run", "-ex", "bt", "-ex", "continue",
                    "-ex", "bt", "-ex", "continue", "--args", exe.toString(), out.toString()));
            List<List<Long>> backtraces = backtraces(gdb.output());
            Assumptions.assumeTrue(backtraces.size() == 2, "gdb could not run the program here:\n" + gdb.output());

            List<ProcMaps.Mapping> maps = ProcMaps.read(Path.of(out + ".maps"));
            ProcessCode code = new ProcessCode(new CodeMap(), () -> maps, Long.MAX_VALUE);
            Unwinder unwinder = new Unwinder(code);
            Symbolizer names = new Symbolizer(code, new SyntheticFrames());
            for (int i = 0; i < 2; i++) {
                ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(Path.of(out + "." + (i + 1) + ".stack"))).order(ByteOrder.LITTLE_ENDIAN);
                long ip = b.getLong(), sp = b.getLong(), bp = b.getLong(), n = b.getLong();
                byte[] stack = Arrays.copyOfRange(b.array(), 32, 32 + (int) n);
                StackTrace t = unwinder.unwind(ip, sp, bp, new SnapshotMemoryView(sp, stack));
                List<Long> gdbCallers = backtraces.get(i).subList(1, backtraces.get(i).size());
                String printed = names.symbolize(t) + "\ngdb:\n" + gdb.output();
                assertThat(names.symbolize(ip).symbol()).isEqualTo("record");
                assertThat(t.ips().subList(1, t.ips().size())).as(printed).isEqualTo(gdbCallers);
                assertThat(t.reliable()).as(printed).isTrue();
                System.out.printf("gdb chain %d: %d frames equal to gdb's, reliable: %s%n", i + 1, t.depth(), names.symbolize(t));
            }
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) Files.deleteIfExists(p);
            }
            Files.deleteIfExists(dir);
        }
    }

    /** The pcs of each backtrace gdb printed (frames with an address; inlined frames have none). */
    static List<List<Long>> backtraces(String output) {
        List<List<Long>> out = new ArrayList<>();
        for (String line : output.split("\n")) {
            Matcher m = FRAME.matcher(line);
            if (!m.find()) continue;
            if (m.group(1).equals("0")) out.add(new ArrayList<>());
            if (!out.isEmpty()) out.get(out.size() - 1).add(Long.parseUnsignedLong(m.group(2), 16));
        }
        return out;
    }
}
