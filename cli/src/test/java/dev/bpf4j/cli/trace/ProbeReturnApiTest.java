package dev.bpf4j.cli.trace;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.OpenObject;
import dev.bpf4j.jit.probe.NativeProbes;
import dev.bpf4j.jit.probe.Probe;
import dev.bpf4j.jit.probe.ProbeLink;
import dev.bpf4j.jit.probe.RootCall;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.object.BpfObjectSpec;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Probe#attachReturn} with a clang-built {@code SEC("kretprobe")} program
 * ({@code src/test/bpf/retsum.c}: counts returns, sums {@code PT_REGS_RC}, counts stacks): an
 * interpreter and a JIT object on leaf's return at once while 3 threads call drive(3) 20 times.
 * drive(3) makes 10 leaf calls returning 28 in all; the stacks at leaf's return are those of
 * leaf's entry without leaf (ip = the return site in the caller) — the same ids, frames and counts
 * on both engines.
 */
class ProbeReturnApiTest {
    static OpenObject retsum() throws IOException {
        try (InputStream in = ProbeReturnApiTest.class.getResourceAsStream("retsum.o")) {
            return BpfObject.open(BpfObjectSpec.parse(in.readAllBytes(), "retsum.o")).maxEntries("stacks", 1 << 20);
        }
    }

    @Test
    void interpreterAndJitOnOneReturnCountTheSame() throws Exception {
        String lib = TraceLib.path().toString();
        long drive = NativeProbes.address(lib, "drive");
        Map<String, List<String>> byId = new LinkedHashMap<>();
        try (BpfObject interp = retsum().load(ObjectLoadOptions.engine("interp"));
             BpfObject jit = retsum().load(ObjectLoadOptions.engine("jit"))) {
            try (ProbeLink a = Probe.attachReturn(lib, "leaf", interp, "retsum");
                 ProbeLink b = Probe.attachReturn(lib, "leaf", jit, "retsum")) {
                assertThat(a.atReturn()).isTrue();
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 3; t++) {
                    Thread th = new Thread(() -> { for (int i = 0; i < 20; i++) RootCall.get().call(drive, 3); });
                    th.start();
                    threads.add(th);
                }
                for (Thread th : threads) th.join();
                assertThat(a.hits()).isEqualTo(3 * 20 * 10L).isEqualTo(b.hits());
                assertThat(a.errors() + b.errors()).isZero();
                assertThat(a.returnsMissed() + a.returnsLost()).isZero();
            }
            Map<String, Long> expected = new LinkedHashMap<>();
            for (String line : TraceCommandTest.LEAF) {
                int sp = line.lastIndexOf(' ');
                String caller = line.substring(0, sp).substring(0, line.substring(0, sp).lastIndexOf(';'));   // without ";leaf"
                expected.merge(caller, 60 * Long.parseLong(line.substring(sp + 1)), Long::sum);
            }
            for (BpfObject obj : List.of(interp, jit)) {
                BpfMap totals = obj.maps().stream().filter(m -> m.name().equals("totals")).findFirst().orElseThrow();
                assertThat(total(totals, 0)).isEqualTo(600);
                assertThat(total(totals, 1)).as("sum of PT_REGS_RC").isEqualTo(60 * 28);
                StackCounts stacks = StackCounts.read(obj.maps()).orElseThrow();
                assertThat(stacks.folded()).containsExactlyInAnyOrderEntriesOf(expected);
                byId.put(obj == interp ? "interp" : "jit", stacks.byId());
            }
        }
        assertThat(byId.get("jit")).isEqualTo(byId.get("interp"));
    }

    private static long total(BpfMap m, int k) {
        byte[] key = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(k).array();
        return ByteBuffer.wrap(m.lookup(key).orElseThrow()).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }
}
