package dev.bpf4j.jit.probe;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Type;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Probes on libc's own functions, which nobody compiled for tracing: labs (mov; neg displaced),
 * atol (mov edx, 10: exactly 5 bytes, then a tail jump), getpid (mov eax, 39; the JVM's own
 * threads may call it while it is patched). Called through jffi; arguments seen, results unchanged.
 */
class LibcProbeTest {
    private static final String LIBC = "libc.so.6";
    private static final CallContext L_L = CallContext.getCallContext(Type.SINT64, new Type[]{Type.SINT64}, CallingConvention.DEFAULT, false);
    private static final CallContext L_P = CallContext.getCallContext(Type.SINT64, new Type[]{Type.POINTER}, CallingConvention.DEFAULT, false);
    private static final CallContext I_V = CallContext.getCallContext(Type.SINT32, new Type[]{}, CallingConvention.DEFAULT, false);

    @ParameterizedTest
    @EnumSource(Engines.class)
    void libcFunctionsCanBeProbed(Engines engine) {
        long block = NativeMemory.allocate(96), text = NativeMemory.allocate(16);
        NativeMemory.setMemory(block, 96, (byte) 0);
        byte[] digits = "-12345\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (int i = 0; i < digits.length; i++) NativeMemory.putByte(text + i, digits[i]);
        List<MemoryRegion> regions = List.of(new MemoryRegion("counters", block, 96, true));
        long labs = NativeProbes.address(LIBC, "labs"), atol = NativeProbes.address(LIBC, "atol"), getpid = NativeProbes.address(LIBC, "getpid");
        long pid = ProcessHandle.current().pid();
        try (Executable x0 = engine.load(ProbeCountTest.counter(0, block), LoadOptions.defaults());
             Executable x1 = engine.load(ProbeCountTest.counter(1, block), LoadOptions.defaults());
             Executable x2 = engine.load(ProbeCountTest.counter(2, block), LoadOptions.defaults())) {
            try (ProbeLink l = NativeProbes.attach(labs, "labs", engine.probe(x0, regions));
                 ProbeLink a = NativeProbes.attach(atol, "atol", engine.probe(x1, regions));
                 ProbeLink g = NativeProbes.attach(getpid, "getpid", engine.probe(x2, regions))) {
                assertThat(Invoker.getInstance().invokeN1(L_L, labs, -42)).isEqualTo(42);
                assertThat(Invoker.getInstance().invokeN1(L_L, labs, 7)).isEqualTo(7);
                assertThat(l.hits()).isEqualTo(2);
                assertThat(NativeMemory.getLong(block + 32)).isEqualTo(7);
                assertThat(Invoker.getInstance().invokeN1(L_P, atol, text)).isEqualTo(-12345);
                assertThat(a.hits()).isGreaterThanOrEqualTo(1);
                assertThat(Invoker.getInstance().invokeN0(I_V, getpid)).isEqualTo(pid);
                assertThat(g.hits()).isGreaterThanOrEqualTo(1);
                assertThat(l.errors() + a.errors() + g.errors()).isZero();
            }
            assertThat(ProcessText.read(labs, 5)).containsExactly(0x48, 0x89, 0xf8, 0x48, 0xf7);
            assertThat(Invoker.getInstance().invokeN1(L_L, labs, -3)).isEqualTo(3);
        } finally {
            NativeMemory.free(block);
            NativeMemory.free(text);
        }
    }
}
