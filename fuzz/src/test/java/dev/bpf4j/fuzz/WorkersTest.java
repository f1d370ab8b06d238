package dev.bpf4j.fuzz;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkersTest {
    @Test
    void everyIndexRunsOnceAcrossWorkers() {
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        AtomicInteger twice = new AtomicInteger();
        Workers.run("t", new Workers.Limits(500L, null, 3, false), (i, busy) -> {
            busy.start("case " + i);
            if (!seen.add(i)) twice.incrementAndGet();
            busy.end();
        }, () -> {}, s -> {}, () -> "");
        assertThat(seen).hasSize(500).allMatch(i -> i >= 0 && i < 500);
        assertThat(twice).hasValue(0);
    }

    @Test
    void aHungCaseIsReportedOnceAndTheCampaignEndsWithoutIt() {
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger hangs = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        List<String> progress = new CopyOnWriteArrayList<>();
        Workers.run("t", new Workers.Limits(20L, null, 2, false, Duration.ofMillis(300)), (i, busy) -> {
            busy.start("case " + i);
            if (i == 3) {
                try {
                    never.await(); // an engine that never returns
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            busy.end();
            done.incrementAndGet();
        }, hangs::incrementAndGet, progress::add, () -> "");
        assertThat(hangs).hasValue(1);
        assertThat(done).hasValue(19); // the other worker finished the rest
        assertThat(progress).anyMatch(l -> l.equals("hang: case 3 has not ended in " + 6 * 300 + " ms"));
        never.countDown();
    }

    /** A case that spins is hung once it has used the limit of CPU time; one slowed by other processes is not. */
    @Test
    void aCaseRunningPastItsCpuTimeIsHungAndASlowOneIsNot() {
        AtomicBoolean release = new AtomicBoolean();
        AtomicInteger hangs = new AtomicInteger();
        List<String> progress = new CopyOnWriteArrayList<>();
        Workers.run("t", new Workers.Limits(6L, null, 2, false, Duration.ofMillis(300)), (i, busy) -> {
            busy.start("case " + i);
            if (i == 2) while (!release.get()) Thread.onSpinWait();   // an engine in an endless loop
            if (i == 4) LockSupport.parkNanos(700_000_000L);         // 0.7 s of wall time, almost no CPU: slow, not hung
            busy.end();
        }, hangs::incrementAndGet, progress::add, () -> "");
        release.set(true);
        assertThat(hangs).hasValue(1);
        assertThat(progress).containsExactly("hang: case 2 has run for more than 300 ms of CPU time");
    }

    @Test
    void aTimeLimitEndsAnEndlessCampaign() {
        AtomicInteger done = new AtomicInteger();
        Workers.run("t", new Workers.Limits(null, Duration.ofMillis(200), 1, false), (i, busy) -> done.incrementAndGet(),
                () -> {}, s -> {}, () -> "");
        assertThat(done.get()).isPositive();
    }

    @Test
    void aQuotaClaimsUpToItsLimitPerClass() {
        Workers.Quota q = new Workers.Quota(2);
        assertThat(List.of(q.claim("a"), q.claim("a"), q.claim("a"), q.claim("b"))).containsExactly(true, true, false, true);
        assertThatThrownBy(() -> new Workers.Limits(null, null, 1, false)).isInstanceOf(IllegalArgumentException.class);
    }
}
