package dev.bpf4j.cli.trace;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.jit.probe.Probe;
import dev.bpf4j.jit.probe.ProbeLink;
import dev.bpf4j.jit.probe.RootCall;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Probe#attach}: the bundled stackcount of an interpreter object and of a JIT object held
 * attached to the same function at once while the user's own threads call the library; after close
 * both objects' maps hold the same stacks, ids and exact counts.
 */
class ProbeApiTest {
    @Test
    void interpreterAndJitHeldOpenOnOneFunctionCountTheSame() throws Exception {
        String lib = TraceLib.path().toString();
        long drive = dev.bpf4j.jit.probe.NativeProbes.address(lib, "drive");
        Map<String, List<String>> byId = new LinkedHashMap<>();
        try (BpfObject interp = StackCount.open().load(ObjectLoadOptions.engine("interp"));
             BpfObject jit = StackCount.open().load(ObjectLoadOptions.engine("jit"))) {
            try (ProbeLink a = Probe.attach(lib, "leaf", interp, StackCount.PROGRAM);
                 ProbeLink b = Probe.attach(lib, "leaf", jit, StackCount.PROGRAM)) {
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 3; t++) {
                    Thread th = new Thread(() -> { for (int i = 0; i < 20; i++) RootCall.get().call(drive, 3); });
                    th.start();
                    threads.add(th);
                }
                for (Thread th : threads) th.join();
                assertThat(a.hits()).isEqualTo(3 * 20 * 10L).isEqualTo(b.hits());
                assertThat(a.errors() + b.errors()).isZero();
            }
            for (BpfObject obj : List.of(interp, jit)) {
                StackCounts stacks = StackCounts.read(obj.maps()).orElseThrow();
                Map<String, Long> expected = new LinkedHashMap<>();
                for (String line : TraceCommandTest.LEAF) {
                    int sp = line.lastIndexOf(' ');
                    expected.put(line.substring(0, sp), 60 * Long.parseLong(line.substring(sp + 1)));
                }
                assertThat(stacks.folded()).containsExactlyEntriesOf(expected);
                byId.put(obj == interp ? "interp" : "jit", stacks.byId());
            }
        }
        assertThat(byId.get("jit")).isEqualTo(byId.get("interp"));
    }
}
