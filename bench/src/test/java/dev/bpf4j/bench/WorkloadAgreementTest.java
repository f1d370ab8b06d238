package dev.bpf4j.bench;

import dev.bpf4j.engine.Engine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs each workload once (never timed) on the interpreter, on the JIT when it is on the class
 * path and on gcc when it is installed, and checks them against a Java port of workloads.h.
 */
class WorkloadAgreementTest {
    private static GccLibrary gcc;

    @BeforeAll
    static void compileGcc() {
        if (GccLibrary.gccAvailable()) gcc = GccLibrary.compile();
    }

    @AfterAll
    static void forget() { gcc = null; }

    private static long expected(Workload w) { return JavaWorkloads.of(w, w.input()); }

    private static long runBpf(String engineName, Workload w) {
        Engine engine = EngineParams.require(engineName);
        try (DataBuffer data = new DataBuffer(w.input()); Target t = Target.bpf(engine, w, data)) {
            return t.run();
        }
    }

    @ParameterizedTest
    @EnumSource(Workload.class)
    void interpreterMatchesJavaPort(Workload w) {
        assertThat(runBpf("interp", w)).as(w.id()).isEqualTo(expected(w));
    }

    @ParameterizedTest
    @EnumSource(Workload.class)
    void jitMatchesJavaPort(Workload w) {
        assumeTrue(EngineParams.find("jit").isPresent(), "the JIT engine is not on the class path");
        assertThat(runBpf("jit", w)).as(w.id()).isEqualTo(expected(w));
    }

    @ParameterizedTest
    @EnumSource(Workload.class)
    void gccMatchesJavaPort(Workload w) {
        assumeTrue(gcc != null, "gcc is not installed");
        for (boolean jniEntry : new boolean[] {false, true}) {
            try (DataBuffer data = new DataBuffer(w.input()); Target t = Target.gcc(gcc, w, data, jniEntry)) {
                assertThat(t.run()).as(w.id() + (jniEntry ? " through the JNI entry" : " through jffi")).isEqualTo(expected(w));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Workload.class)
    void everyRunnerAgrees(Workload w) {
        Map<String, Long> results = Agreement.results(w, gcc);
        assertThat(results).containsKeys("interp", "steps");
        assertThat(results.values()).as(results.toString()).containsOnly(expected(w));
    }

    @Test
    void workloadsTakeTheirMeaningfulPath() {
        // A parser that rejects the packet or a sort that returns 0 would measure the wrong thing.
        for (Workload w : Workload.values()) assertThat(expected(w)).as(w.id()).isNotZero();
        assertThat(Workload.FNV1A.input()).hasSize(1500);
        assertThat(Workload.PARSE.input()).hasSize(64);
        assertThat(Workload.SORT.input()).hasSize(256);
    }

    @Test
    void agreementRejectsADifferentAnswer() {
        assertThat(Agreement.requireSame("x", Map.of("interp", 5L, "gcc", 5L))).isEqualTo(5L);
        assertThatThrownBy(() -> Agreement.requireSame("x", new java.util.TreeMap<>(Map.of("interp", 5L, "gcc", 6L))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("x: engines disagree")
                .hasMessageContaining("gcc=0x0000000000000006");
    }

    @Test
    void aNonIpPacketTakesTheEarlyExit() {
        byte[] ipv6 = Workload.PARSE.input();
        ipv6[12] = (byte) 0x86;
        ipv6[13] = (byte) 0xdd;
        assertThat(JavaWorkloads.parse(ipv6)).isZero();
        try (DataBuffer data = new DataBuffer(ipv6); Target t = Target.bpf(EngineParams.require("interp"), Workload.PARSE, data)) {
            assertThat(t.run()).isZero();
        }
    }
}
