package dev.bpf4j.jit.probe;

import dev.bpf4j.jit.NativeCode;
import dev.bpf4j.jit.runtime.ExecutableMemory;
import dev.bpf4j.unwind.CfaRule;
import dev.bpf4j.unwind.CodeRegion;
import dev.bpf4j.unwind.UnwindRow;

import java.util.List;

/**
 * {@link NativeCode#captureStack()} as a native helper for JIT programs, with the code region that
 * lets the unwinder step out of it (a frameless leaf: the return address at rsp).
 */
final class StackCapture implements AutoCloseable {
    final ExecutableMemory code;
    final CodeRegion region;

    StackCapture() {
        code = NativeCode.captureStack();
        region = new CodeRegion(code.address(), code.size(), "probe_test_capture", "test",
                List.of(new UnwindRow(0, code.size(), CfaRule.RETURN_AT_SP)));
    }

    @Override public void close() { code.close(); }
}
