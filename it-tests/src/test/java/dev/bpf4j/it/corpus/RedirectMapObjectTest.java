package dev.bpf4j.it.corpus;

import dev.bpf4j.api.Engines;
import dev.bpf4j.maps.BpfMapException;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.Maps;
import dev.bpf4j.engine.Engine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * helpers_redirect_map.o through BpfObject on every engine ({@link RedirectMapCases}): Linux's update errnos,
 * its verdicts and the maps left behind, the same on the interpreter and the JIT; the map types' creation
 * checks; and {@code bpf4j run --dump-maps} on the object. KernelCorpusTest compares it all with Linux.
 */
class RedirectMapObjectTest {
    @Test void everyEngineGivesLinuxsVerdictsAndErrnos() {
        Outcome reference = RedirectMapCases.outcome(Engines.byName("interp"));
        RedirectMapCases.check(reference);
        int engines = 0;
        for (Engine e : CorpusDifferentialTest.engines()) {
            assertThat(RedirectMapCases.outcome(e)).as("%s vs interp", e.name()).isEqualTo(reference);
            engines++;
        }
        assertThat(engines).as("interp and jit").isGreaterThanOrEqualTo(2);
    }

    /** dev_map_alloc / cpu_map_alloc / xsk_map_alloc: the attribute checks and their errnos (KernelCorpusTest: the same in Linux). */
    @Test void creationChecksAsLinux() {
        for (int[] c : CREATES) assertThat(createErrno(c)).as("create type %d key %d value %d max %d flags 0x%x", c[0], c[1], c[2], c[3], c[4]).isEqualTo(c[5]);
    }

    /** type, key_size, value_size, max_entries, map_flags, Linux's errno. */
    static final int[][] CREATES = {
        {14, 4, 4, 8, 0, 0}, {14, 4, 8, 8, 0, 0}, {14, 4, 6, 8, 0, 22}, {14, 8, 4, 8, 0, 22}, {14, 4, 4, 0, 0, 22},
        {14, 4, 4, 8, 1, 22}, {14, 4, 4, 8, 1 << 3, 0}, {14, 4, 4, 8, 1 << 7, 22},
        {25, 4, 8, 8, 0, 0}, {25, 4, 4, 3, 0, 0}, {25, 4, 12, 8, 0, 22}, {25, 4, 4, 8, 1, 22},
        {16, 4, 4, 2, 0, 0}, {16, 4, 8, 2, 0, 0}, {16, 4, 12, 2, 0, 22}, {16, 4, 4, 2, 1 << 3, 22}, {16, 4, 4, 8193, 0, 7},
        {17, 4, 4, 4, 0, 0}, {17, 4, 8, 4, 0, 22}, {17, 2, 4, 4, 0, 22}, {17, 4, 4, 0, 0, 22},
    };

    static int createErrno(int[] c) {
        BpfMapException e = catchThrowableOfType(() -> Maps.create(MapDefinition.of("m", c[0], c[1], c[2], c[3], c[4])).close(),
                BpfMapException.class);
        return e == null ? 0 : e.errno();
    }

    @Test void runDumpsTheRedirectMaps(@TempDir Path dir) throws Exception {
        Path data = Files.write(dir.resolve("p.bin"), RedirectMapCases.RUNS.get(1).options().dataIn());
        ObjectCliTest.Result r = ObjectCliTest.cli("run", ObjectCliTest.obj("helpers_redirect_map"), "--engine", "all", "--data-in", data.toString(), "--dump-maps");
        assertThat(r.status()).as(r.err()).isZero();
        // devmap 2 is empty: flags 0 are the fallback XDP_ABORTED; the maps hold nothing a run could add
        assertThat(r.out()).startsWith("== interp\nretval: 0\n").contains("== jit\nretval: 0\n").contains("== jvm\nretval: 0\n");
        int engines = (int) r.out().lines().filter(l -> l.matches("== (interp|jit|jvm|kernel)")).count();
        for (String m : new String[] {"tx_dev", "tx_dev_hash", "tx_cpu", "tx_xsk"}) {
            assertThat(r.out().split("\"name\": \"" + m + "\", \"entries\": \\[\\]", -1)).as(m).hasSize(engines + 1);
        }
    }
}
