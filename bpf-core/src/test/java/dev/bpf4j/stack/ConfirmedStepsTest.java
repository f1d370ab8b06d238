package dev.bpf4j.stack;

import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.UnwindRow;
import dev.bpf4j.unwind.Unwinder;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A step confirmed in generated code is forgotten when its region leaves the code map, and when
 * another region is registered over it: JIT code is freed and its addresses reused, and a stale
 * step would make the native walk differ from the Java unwinder.
 */
class ConfirmedStepsTest {
    @Test
    void stepsInARegionAreForgottenWhenItGoesOrIsReplaced() {
        long code = NativeMemory.allocate(64);   // an address range no code map region holds; never executed
        try {
            CodeRegion region = new CodeRegion(code, 64, "test_steps", "test", List.of(new UnwindRow(0, 64, CfaRule.FRAME_POINTER)));
            ConfirmedSteps steps = ConfirmedSteps.global();
            long key = (code + 8) | ConfirmedSteps.FIRST, other = (code + 100) | ConfirmedSteps.FIRST;

            CodeMap.global().register(region);
            steps.learn(Unwinder.global(), new long[] {code + 8});
            assertThat(steps.find(key)).as("confirmed from the region's rows").isNotZero();
            CodeMap.global().unregister(region);
            assertThat(steps.find(key)).as("forgotten with its region").isZero();

            CodeMap.global().register(region);
            steps.learn(Unwinder.global(), new long[] {code + 8});
            assertThat(steps.find(key)).isNotZero();
            CodeMap.global().register(new CodeRegion(code + 64, 64, "test_neighbour", "test", List.of()));
            assertThat(steps.find(key)).as("a neighbour leaves it alone").isNotZero();
            assertThat(steps.find(other)).isZero();
            CodeMap.global().unregister(region);
            assertThat(steps.find(key)).isZero();
        } finally {
            CodeMap.global().unregister(new CodeRegion(code + 64, 64, "test_neighbour", "test", List.of()));
            NativeMemory.free(code);
        }
    }
}
