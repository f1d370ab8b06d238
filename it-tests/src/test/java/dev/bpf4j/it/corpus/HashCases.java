package dev.bpf4j.it.corpus;

import dev.bpf4j.api.RunOptions;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * helpers_hash.c: bpf_get_hash_recalc's value is keyed by a secret (Linux: random at boot), so only its
 * properties are compared, with both engines and Linux: nonzero, written to skb->hash and kept until
 * bpf_set_hash_invalid / BPF_F_INVALIDATE_HASH clear it; both directions of a flow hash alike; another source
 * port is another flow unless the ports are not hashed (IPv4 fragments, IPv6 with a flow label, non-IP);
 * bpf_set_hash's value is what recalc returns.
 */
final class HashCases {
    private HashCases() {}

    /** Per packet: its frame and whether its ports are hashed. */
    record Frame(String what, byte[] bytes, boolean portsHashed) {}

    static List<Frame> frames() {
        byte[] fragment = Packets.udp(53, 10);
        fragment[20] = 0x20; // MF, offset 0 (the flow dissector does not check the header checksum)
        fragment[21] = 0;
        byte[] labelled = Packets.ipv6(17, 64);
        labelled[15] = 0x01; labelled[16] = 0x23; labelled[17] = 0x45; // flow label 0x12345
        return List.of(new Frame("ipv4 udp", Packets.udp(53, 10), true), new Frame("ipv4 tcp", Packets.tcp(80, 64), true),
                new Frame("ipv6 udp", Packets.ipv6(17, 64), true), new Frame("ipv6 labelled", labelled, false),
                new Frame("ipv4 fragment", fragment, false), new Frame("arp", Packets.arp(), false));
    }

    static List<CorpusCase> all() {
        List<Frame> frames = frames();
        List<RunOptions> runs = new ArrayList<>();
        for (Frame f : frames) runs.add(RunOptions.packet(f.bytes()));
        runs.add(RunOptions.packet(frames.get(0).bytes()).withRepeat(2)); // the second run sees the first's hash
        return List.of(new CorpusCase("helpers_hash", "tc_hash", runs, o -> {
            for (int run = 0; run < frames.size() + 2; run++) {
                Frame f = frames.get(run < frames.size() ? run : 0);
                // the repeated run starts with bpf_set_hash's 0x1234 still set: recalc returns it
                boolean repeated = run == frames.size() + 1;
                assertThat(slot(o, run, 0)).as("%s: nonzero, in skb->hash, kept", f.what()).isEqualTo(HelperCases.hexLe(7));
                if (repeated) continue;
                assertThat(slot(o, run, 1)).as("%s: cleared, then the same", f.what()).isEqualTo(HelperCases.hexLe(3));
                assertThat(slot(o, run, 2)).as("%s: both directions alike", f.what()).isEqualTo(HelperCases.hexLe(1));
                assertThat(slot(o, run, 3)).as("%s: another port", f.what()).isEqualTo(HelperCases.hexLe(f.portsHashed() ? 1 : 3));
                assertThat(slot(o, run, 4)).as("%s: bpf_set_hash", f.what()).isEqualTo(HelperCases.hexLe(3));
            }
        }, null));
    }

    private static String slot(Outcome o, int run, int slot) {
        return o.entry("hash_res", Corpus.hex(Packets.le32(run * 8 + slot)));
    }
}
