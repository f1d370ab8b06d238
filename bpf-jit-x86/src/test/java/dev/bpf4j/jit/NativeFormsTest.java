package dev.bpf4j.jit;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.helpers.HelperIds;
import dev.bpf4j.isa.ProgramBuilder;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The native-form functions the JIT binds standard helpers to are registered in the code map as a JIT
 * function is: named, and with unwind rows for every instruction of their rbp frame.
 */
class NativeFormsTest {
    @Test
    void eachFormIsAnRbpFunctionInTheCodeMap() {
        HelperRegistry helpers = BpfHelpers.registry(MapTable.create(List.of()));
        int[] ids = {HelperIds.KTIME_GET_NS, HelperIds.GET_SMP_PROCESSOR_ID, HelperIds.GET_CURRENT_PID_TGID};
        for (int id : ids) {
            String name = helpers.lookup(id).orElseThrow().name();
            Assumptions.assumeTrue(helpers.lookup(id).orElseThrow().nativeForm() != null, name + " has no native form here");
            try (Executable e = new JitEngine().load(new ProgramBuilder().call(id).exit().build("form"), LoadOptions.defaults().withHelpers(helpers))) {
                e.run(RunContext.builder().build());
            }
            CodeRegion r = CodeMap.global().regions().stream().filter(x -> x.symbol().equals(NativeForms.symbol(name)))
                    .findFirst().orElseThrow(() -> new AssertionError("no code region for " + name));
            long start = r.start(), last = r.end() - 1;
            assertThat(NativeMemory.getByte(start) & 0xff).as("push rbp").isEqualTo(0x55);
            assertThat(NativeMemory.getByte(last - 1) & 0xff).as("leave").isEqualTo(0xc9);
            assertThat(NativeMemory.getByte(last) & 0xff).as("ret").isEqualTo(0xc3);
            assertThat(r.ruleAt(start)).isEqualTo(CfaRule.RETURN_AT_SP);
            assertThat(r.ruleAt(start + 1)).isEqualTo(CfaRule.RETURN_AT_SP_PLUS_8); // mov rbp, rsp
            assertThat(r.ruleAt(start + 4)).isEqualTo(CfaRule.FRAME_POINTER);
            assertThat(r.ruleAt(last - 1)).isEqualTo(CfaRule.FRAME_POINTER); // leave
            assertThat(r.ruleAt(last)).isEqualTo(CfaRule.RETURN_AT_SP);
        }
    }
}
