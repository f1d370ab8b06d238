package dev.bpf4j.interp;

import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.ErrorKind;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Assertions on run-time errors: kind, pc and (for memory errors) address. */
final class Errors {
    private Errors() {}

    static BpfRuntimeException expect(ErrorKind kind, int pc, ThrowingCallable run) {
        BpfRuntimeException[] caught = new BpfRuntimeException[1];
        assertThatThrownBy(run).isInstanceOfSatisfying(BpfRuntimeException.class, e -> {
            org.assertj.core.api.Assertions.assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind);
            org.assertj.core.api.Assertions.assertThat(e.pc()).as(e.getMessage()).isEqualTo(pc);
            org.assertj.core.api.Assertions.assertThat(e.program()).isEqualTo("test");
            caught[0] = e;
        });
        return caught[0];
    }

    static void outOfBounds(int pc, long address, ThrowingCallable run) {
        BpfRuntimeException e = expect(ErrorKind.OUT_OF_BOUNDS, pc, run);
        org.assertj.core.api.Assertions.assertThat(e.address()).as(e.getMessage()).isEqualTo(address);
    }
}
