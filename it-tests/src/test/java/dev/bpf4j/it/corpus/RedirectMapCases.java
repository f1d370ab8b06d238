package dev.bpf4j.it.corpus;

import dev.bpf4j.api.RunOptions;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * helpers_redirect_map.c: bpf_redirect_map on a DEVMAP, DEVMAP_HASH, CPUMAP and XSKMAP. The verdicts were
 * worked out from net/core/filter.c's __bpf_xdp_redirect_map and read back from Linux 6.18's
 * BPF_PROG_TEST_RUN (without live frames nothing is sent and retval is the helper's verdict):
 * a present key XDP_REDIRECT (4), an absent one the low two flag bits, a flag outside those bits and the
 * map's own flags XDP_ABORTED (0), BPF_F_BROADCAST on a devmap XDP_REDIRECT whatever the key.
 * {@link #TARGETS} are set from user space first (ifindex 1 is the loopback device, on every machine).
 */
final class RedirectMapCases {
    private RedirectMapCases() {}

    static final int DEV = 0, DEV_HASH = 1, CPU = 2, XSK = 3;
    static final long BROADCAST = 8, EXCLUDE_INGRESS = 16;

    /** One run: which map, the key, the flags, and the verdict Linux returns. */
    record Run(int map, int key, long flags, long verdict) {
        RunOptions options() {
            byte[] p = new byte[64];
            ByteBuffer.wrap(p, 14, 16).order(ByteOrder.LITTLE_ENDIAN).putInt(map).putInt(key).putLong(flags);
            return RunOptions.packet(p);
        }
    }

    /** A user-space update: map, key, value, flags and Linux's errno (0: success). */
    record Update(String map, int key, byte[] value, long flags, int errno) {
        byte[] keyBytes() { return le(key); }
    }

    static byte[] le(int... words) {
        ByteBuffer b = ByteBuffer.allocate(words.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int w : words) b.putInt(w);
        return b.array();
    }

    /** The targets every run sees: devmap 1 and devmap hash 5 to the loopback device, cpumap 1 with a queue of 64. */
    static final List<Update> TARGETS = List.of(
            new Update("tx_dev", 1, le(1), 0, 0),
            new Update("tx_dev_hash", 5, le(1, 0), 0, 0),
            new Update("tx_cpu", 1, le(64, 0), 0, 0));

    /** Updates at and past every bound of devmap.c / cpumap.c, with the errno Linux 6.18 gives. */
    static final List<Update> UPDATES = List.of(
            new Update("tx_dev", 2, le(0x7ffffff0), 0, 22),   // no such interface: dev_get_by_index fails
            new Update("tx_dev", 2, le(1), 1, 17),            // BPF_NOEXIST on an array devmap
            new Update("tx_dev", 2, le(1), 3, 22),            // flags past BPF_EXIST
            new Update("tx_dev", 8, le(1), 0, 7),             // key past max_entries
            new Update("tx_dev", 3, le(0), 0, 0),             // ifindex 0 empties the slot
            new Update("tx_dev_hash", 6, le(0, 0), 0, 22),    // ifindex 0
            new Update("tx_dev_hash", 6, le(1, 5), 0, 22),    // a program fd bpf4j (and here Linux: not an XDP program) refuses
            new Update("tx_dev_hash", 5, le(1, 0), 1, 17),    // BPF_NOEXIST on a present key
            new Update("tx_dev_hash", 7, le(1, 0), 2, 0),     // BPF_EXIST on an absent key: devmap hash allows it (as Linux)
            new Update("tx_cpu", 0, le(16385, 0), 0, 75),     // qsize past 16384: -EOVERFLOW
            new Update("tx_cpu", 2, le(64, 0), 0, 7),         // key past max_entries
            new Update("tx_cpu", 0, le(64, 0), 1, 17),        // BPF_NOEXIST
            new Update("tx_cpu", 0, le(0, 0), 0, 0),          // qsize 0: no entry
            new Update("tx_xsk", 4, le(0), 0, 7));            // key past max_entries (before the socket fd is looked at)

    static final List<Run> RUNS = runs();

    static final CorpusCase CASE = new CorpusCase("helpers_redirect_map", "xdp_redirect_map",
            RUNS.stream().map(Run::options).toList(), o -> { }, null);

    /** The outcome on a bpf4j engine: first each update's errno, then the runs' verdicts, then the maps. */
    static Outcome outcome(dev.bpf4j.engine.Engine engine) {
        try (var obj = dev.bpf4j.api.BpfObject.open(CASE.path()).load(dev.bpf4j.api.ObjectLoadOptions.engine(engine))) {
            List<String> lines = new ArrayList<>();
            for (Update u : TARGETS) lines.add(line(u, update(obj, u)));
            for (Update u : UPDATES) lines.add(line(u, update(obj, u)));
            Outcome o = Outcome.of(obj, CASE);
            lines.addAll(o.runs());
            return new Outcome(lines, o.maps());
        }
    }

    private static int update(dev.bpf4j.api.BpfObject obj, Update u) {
        try {
            obj.map(u.map()).update(u.keyBytes(), u.value(), u.flags());
            return 0;
        } catch (dev.bpf4j.maps.BpfMapException e) {
            return e.errno();
        }
    }

    static String line(Update u, int errno) { return "update " + u.map() + "[" + u.key() + "] flags " + u.flags() + ": errno " + errno; }

    /** The expected outcome's lines: Linux's errnos, then its verdicts. */
    static List<String> expectedUpdates() {
        List<String> out = new ArrayList<>();
        for (Update u : TARGETS) out.add(line(u, u.errno()));
        for (Update u : UPDATES) out.add(line(u, u.errno()));
        return out;
    }

    static void check(Outcome o) {
        int n = TARGETS.size() + UPDATES.size();
        assertThat(o.runs().subList(0, n)).isEqualTo(expectedUpdates());
        checkVerdicts(o.runs().subList(n, o.runs().size()));
        // what the updates left: lookups read back ifindex / qsize and prog id 0
        assertThat(o.maps().get("tx_dev")).containsExactly("01000000=01000000");
        assertThat(o.maps().get("tx_dev_hash")).containsExactly("05000000=0100000000000000", "07000000=0100000000000000");
        assertThat(o.maps().get("tx_cpu")).containsExactly("01000000=4000000000000000");
        assertThat(o.maps().get("tx_xsk")).isEmpty();
    }

    private static List<Run> runs() {
        List<Run> r = new ArrayList<>();
        r.add(new Run(DEV, 1, 0, 4));
        for (long f = 0; f < 4; f++) r.add(new Run(DEV, 2, f, f));
        r.add(new Run(DEV, 2, 4, 0));                        // bit 2 is no action bit: XDP_ABORTED
        r.add(new Run(DEV, 2, BROADCAST, 4));
        r.add(new Run(DEV, 2, BROADCAST | EXCLUDE_INGRESS | 3, 4));
        r.add(new Run(DEV, 2, 32, 0));
        r.add(new Run(DEV, 1, 1L << 32, 0));
        r.add(new Run(DEV, 8, 2, 2));                        // past max_entries: absent
        r.add(new Run(DEV, -1, 3, 3));
        r.add(new Run(DEV_HASH, 5, 0, 4));
        r.add(new Run(DEV_HASH, 6, 2, 2));
        r.add(new Run(DEV_HASH, 6, BROADCAST, 4));
        r.add(new Run(DEV_HASH, 6, EXCLUDE_INGRESS, 0));
        r.add(new Run(DEV_HASH, 6, EXCLUDE_INGRESS | 1, 1));
        r.add(new Run(CPU, 1, 0, 4));
        r.add(new Run(CPU, 0, 1, 1));
        r.add(new Run(CPU, 0, BROADCAST, 0));               // not a cpumap flag
        r.add(new Run(CPU, 1, BROADCAST, 0));
        r.add(new Run(XSK, 0, 2, 2));
        r.add(new Run(XSK, 0, BROADCAST, 0));
        return r;
    }

    /** The retvals of {@link #RUNS}, as an outcome's run line starts. */
    static void checkVerdicts(List<String> runLines) {
        assertThat(runLines).hasSize(RUNS.size());
        for (int i = 0; i < RUNS.size(); i++) {
            Run run = RUNS.get(i);
            assertThat(runLines.get(i)).as("run %d: %s", i, run).startsWith("retval=" + run.verdict() + " ");
        }
    }
}
