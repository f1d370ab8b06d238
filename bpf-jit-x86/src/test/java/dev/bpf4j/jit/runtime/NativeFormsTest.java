package dev.bpf4j.jit.runtime;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.asm.ProgramBuilder;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeMap;
import dev.bpf4j.unwind.CodeRegion;
import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import dev.bpf4j.jit.JitEngine;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.NativeForm;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The native-form functions the JIT binds standard helpers to, and the JNI upcall function it binds
 * Java helpers to, are registered in the code map as a JIT function is: named, and with unwind rows
 * for every instruction of their rbp frame.
 */
class NativeFormsTest {
    @Test
    void eachFormIsAnRbpFunctionInTheCodeMap() {
        HelperRegistry helpers = BpfHelpers.registry(MapTable.create(List.of()));
        int[] ids = {HelperIds.KTIME_GET_NS, HelperIds.GET_SMP_PROCESSOR_ID, HelperIds.GET_CURRENT_PID_TGID, HelperIds.GET_PRANDOM_U32};
        for (int id : ids) {
            String name = helpers.lookup(id).orElseThrow().name();
            Assumptions.assumeTrue(helpers.lookup(id).orElseThrow().nativeForm() != null, name + " has no native form here");
            try (Executable e = new JitEngine().load(new ProgramBuilder().call(id).exit().build("form"), LoadOptions.defaults().withHelpers(helpers))) {
                e.run(RunContext.builder().build());
            }
            assertRbpFunction(NativeForms.symbol(name));
        }
    }

    /** The code region named {@code symbol}, checked to be one rbp function with a row for every instruction. */
    private static CodeRegion assertRbpFunction(String symbol) {
        CodeRegion r = CodeMap.global().regions().stream().filter(x -> x.symbol().equals(symbol))
                .findFirst().orElseThrow(() -> new AssertionError("no code region for " + symbol));
        long start = r.start(), last = r.end() - 1;
        assertThat(NativeMemory.getByte(start) & 0xff).as("push rbp").isEqualTo(0x55);
        assertThat(NativeMemory.getByte(last - 1) & 0xff).as("leave").isEqualTo(0xc9);
        assertThat(NativeMemory.getByte(last) & 0xff).as("ret").isEqualTo(0xc3);
        assertThat(r.ruleAt(start)).isEqualTo(CfaRule.RETURN_AT_SP);
        assertThat(r.ruleAt(start + 1)).isEqualTo(CfaRule.RETURN_AT_SP_PLUS_8); // mov rbp, rsp
        assertThat(r.ruleAt(start + 4)).isEqualTo(CfaRule.FRAME_POINTER);
        assertThat(r.ruleAt(last - 1)).isEqualTo(CfaRule.FRAME_POINTER); // leave
        assertThat(r.ruleAt(last)).isEqualTo(CfaRule.RETURN_AT_SP);
        return r;
    }

    /**
     * Java helpers are called through the generated JNI upcall function, an rbp function in the code
     * map too; with {@code -Dbpf4j.jit.jniUpcall=false} through the jffi closure.
     */
    @Test
    void javaHelpersGoThroughTheJniUpcallFunction() {
        Assumptions.assumeTrue(JniUpcall.find() != null, "JNI cannot be reached from generated code here");
        Assumptions.assumeTrue(GeneratedFunctions.jniUpcalls(), "-Dbpf4j.jit.jniUpcall=false is set");
        long address = HelperUpcall.address();
        assertThat(assertRbpFunction(HelperUpcall.SYMBOL).start()).isEqualTo(address);
        System.setProperty("bpf4j.jit.jniUpcall", "false");
        try {
            assertThat(HelperUpcall.address()).isEqualTo(HelperBridge.address());
        } finally {
            System.clearProperty("bpf4j.jit.jniUpcall");
        }
    }

    /**
     * bpf_get_prandom_u32's function draws exactly {@code NativeForm.PrandomU32.mix32} of the seed it
     * keeps in the thread's slot, the seed moving on by GAMMA per draw; each thread has its own.
     */
    @Test
    void prandomDrawsTheMixOfTheThreadsMovingSeed() throws Exception {
        HelperSpec spec = BpfHelpers.registry(MapTable.create(List.of())).lookup(HelperIds.GET_PRANDOM_U32).orElseThrow();
        Assumptions.assumeTrue(spec.nativeForm() instanceof NativeForm.PrandomU32, "no native form of bpf_get_prandom_u32 here");
        NativeForm.ThreadSlot slot = ((NativeForm.PrandomU32) spec.nativeForm()).slot();
        long draw = NativeForms.bind(spec).address();
        Invoker invoker = Invoker.getInstance();
        CallContext none = CallContext.getCallContext(Type.SINT64, new Type[0], CallingConvention.DEFAULT, false);
        CallContext one = CallContext.getCallContext(Type.SINT64, new Type[]{Type.SINT64}, CallingConvention.DEFAULT, false);
        long[] firstSeeds = new long[2];
        Throwable[] failure = new Throwable[1];
        for (int t = 0; t < 2; t++) {
            int thread = t;
            Thread th = new Thread(() -> { try {
                assertThat(invoker.invokeN1(one, slot.getspecific(), slot.key())).as("no seed before the first draw").isZero();
                long r = invoker.invokeN0(none, draw);
                long home = invoker.invokeN1(one, slot.getspecific(), slot.key());
                assertThat(home).as("the seed's slot after the first draw").isNotZero();
                long seed = NativeMemory.getLong(home);
                firstSeeds[thread] = seed;
                assertThat(r).isEqualTo(NativeForm.PrandomU32.mix32(seed));
                for (int i = 0; i < 100; i++) {
                    r = invoker.invokeN0(none, draw);
                    seed += NativeForm.PrandomU32.GAMMA;
                    assertThat(r).isEqualTo(NativeForm.PrandomU32.mix32(seed));
                    assertThat(NativeMemory.getLong(home)).isEqualTo(seed);
                }
            } catch (Throwable x) { failure[0] = x; } });
            th.start();
            th.join();
            if (failure[0] != null) throw new AssertionError("thread " + t, failure[0]);
        }
        assertThat(firstSeeds[0]).as("each thread seeds its own generator").isNotEqualTo(firstSeeds[1]);
    }
}
