package dev.bpf4j.unwind.profile;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JavaStackSamplerTest {
    static long spin(long nanos) {
        long end = System.nanoTime() + nanos, x = 1;
        while (System.nanoTime() < end) x = x * 31 + 7;
        return x;
    }

    @Test
    void samplesTheTargetThreadsJavaStackRootFirst() throws InterruptedException {
        // long enough for 20 samples at 200 Hz even when other builds load both cores
        Thread busy = new Thread(() -> spin(1_500_000_000L), "busy");
        JavaStackSampler s = new JavaStackSampler(busy, 200);
        busy.start();
        s.start();
        busy.join();
        long n = s.stop();
        assertThat(n).isGreaterThan(20).isEqualTo(s.stacks().total());
        List<String> some = s.stacks().top(1).get(0).getKey();
        assertThat(some.get(0)).isEqualTo("java.lang.Thread.run");
        assertThat(s.stacks().counts().keySet()).anyMatch(st -> st.contains(JavaStackSamplerTest.class.getName() + ".spin"));
    }

    @Test
    void lambdaClassesLoseTheirPerRunAddress() {
        assertThat(JavaStackSampler.name(new StackTraceElement("a.Foo$$Lambda$44/0x00007f062801d988", "run", null, -1))).isEqualTo("a.Foo$$Lambda.run");
        assertThat(JavaStackSampler.name(new StackTraceElement("a.Foo", "bar", "Foo.java", 3))).isEqualTo("a.Foo.bar");
        assertThatThrownBy(() -> new JavaStackSampler(Thread.currentThread(), 0)).hasMessageContaining("frequency 0 Hz");
    }
}
