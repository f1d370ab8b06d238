package dev.bpf4j.it.corpus;

import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.api.RunOptions;
import dev.bpf4j.maps.ArrayMap;
import dev.bpf4j.maps.BpfMap;
import dev.bpf4j.maps.SpinLock;
import dev.bpf4j.object.BpfObjectSpec;
import dev.bpf4j.object.ProgramSpec;
import dev.bpf4j.runtime.BpfLoadException;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** bpf_spin_lock from C: real exclusion between threads on each engine, the lock word kept from Java, load-time errors. */
class SpinLockObjectTest {
    static final int THREADS = 4, CALLS = 5, REPEAT = 400;

    /** struct pair { u64 packets; bpf_spin_lock lock; u32 last_len; u64 twice; } */
    static long word(byte[] v, int off) { return ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong(off); }

    @ParameterizedTest
    @ValueSource(strings = {"interp", "jit", "jvm"})
    void threadsIncrementingUnderTheLockLoseNothing(String engine) throws Exception {
        byte[] pkt = Packets.udp(53, 10);
        try (BpfObject obj = BpfObject.open(CorpusCase.DIR.resolve("spin_lock.o")).load(ObjectLoadOptions.engine(engine))) {
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < CALLS; i++) obj.program("xdp_spin").run(RunOptions.packet(pkt).withRepeat(REPEAT));
                        return null;
                    }));
                }
                for (Future<?> f : done) f.get();
            } finally {
                pool.shutdown();
            }
            long total = (long) THREADS * CALLS * REPEAT;
            byte[] pair = obj.map("pairs").lookup(new byte[4]).orElseThrow();
            assertThat(word(pair, 0)).isEqualTo(total);
            assertThat(word(pair, 16)).isEqualTo(2 * total);
            byte[] proto = obj.map("by_proto").lookup(new byte[] {(byte) (pkt.length & 3), 0, 0, 0}).orElseThrow();
            assertThat(word(proto, 0)).isEqualTo(total);
            assertThat(word(proto, 16)).isEqualTo(2 * total);
        }
    }

    @Test void javaUpdatesNeverOverwriteTheLockWord() {
        try (BpfObject obj = BpfObject.open(CorpusCase.DIR.resolve("spin_lock.o")).load("interp")) {
            BpfMap pairs = obj.map("pairs");
            assertThat(pairs.definition().spinLockOffset()).isEqualTo(8);
            long lock = ((ArrayMap) pairs).elementAddress(0, 0) + 8;
            assertThat(SpinLock.tryLock(lock)).isTrue();
            byte[] v = new byte[24];
            java.util.Arrays.fill(v, (byte) 0x5a);
            pairs.update(new byte[4], v, 0);
            assertThat(NativeMemory.getInt(lock)).isEqualTo(1); // still held
            assertThat(pairs.lookup(new byte[4]).orElseThrow()).satisfies(b -> assertThat(ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt(8)).isZero());
            SpinLock.unlock(lock);
        }
    }

    @Test void lockWithoutBtfOrLockFieldIsALoadError() {
        var path = CorpusCase.DIR.resolve("spin_lock_errors.o");
        assertThatThrownBy(() -> BpfObject.open(path).load("interp")).isInstanceOf(BpfLoadException.class)
                .hasMessageContaining("load program lock_no_btf pc ")
                .hasMessageContaining("spin_lock_errors.c:")
                .hasMessageContaining("map 'untyped' has to have BTF in order to use bpf_spin_lock");
        assertThatThrownBy(() -> BpfObject.open(onlyProgram("lock_no_field")).load("jit")).isInstanceOf(BpfLoadException.class)
                .hasMessageContaining("load program lock_no_field pc ")
                .hasMessageContaining("map 'unlocked' has no valid bpf_spin_lock");
        assertThatThrownBy(() -> BpfObject.open(onlyProgram("lock_wrong_off")).load("interp")).isInstanceOf(BpfLoadException.class)
                .hasMessageContaining("load program lock_wrong_off pc ")
                .hasMessageContaining("off 0 doesn't point to 'struct bpf_spin_lock' that is at 8");
        assertThatThrownBy(() -> BpfObject.open(onlyProgram("lock_no_unlock")).load("interp"))
                .hasMessageMatching("(?s)load program lock_no_unlock pc \\d+ .*: BPF_EXIT instruction in main prog cannot be used inside bpf_spin_lock-ed region");
        assertThatThrownBy(() -> BpfObject.open(onlyProgram("lock_call_inside")).load("interp"))
                .hasMessageContaining("bpf_ktime_get_ns()").hasMessageEndingWith("function calls are not allowed while holding a lock");
        assertThatThrownBy(() -> BpfObject.open(onlyProgram("unlock_only")).load("jit"))
                .hasMessageContaining("load program unlock_only pc ").hasMessageEndingWith("bpf_spin_unlock without taking a lock");
    }

    /** spin_lock_errors.o with only {@code program}, moved out of "?xdp" so that it is loaded. */
    static BpfObjectSpec onlyProgram(String program) {
        BpfObjectSpec spec = BpfObjectSpec.read(CorpusCase.DIR.resolve("spin_lock_errors.o"));
        ProgramSpec p = spec.program(program);
        ProgramSpec loaded = new ProgramSpec(p.name(), "xdp", p.type(), p.attachType(), p.attachTarget(), p.sleepable(), p.program(),
                p.mapReferences(), p.functions(), p.funcInfos(), p.lineInfos(), p.coreRelocations());
        return new BpfObjectSpec(spec.name(), spec.license(), spec.kernelVersion(), List.of(loaded), spec.maps(), spec.btf());
    }
}
