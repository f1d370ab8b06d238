package dev.bpf4j.helpers;

import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static dev.bpf4j.runtime.HelperIds.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProbeHelpersTest {
    private static HelperRegistry registry(ProbeMemory.Mode mode) {
        return BpfHelpers.registry(MapTable.of(List.of()), BpfHelpers.Options.defaults().withProbeMode(mode));
    }

    private final HelperRegistry process = registry(ProbeMemory.Mode.PROCESS);
    private final HelperRegistry regionsOnly = registry(ProbeMemory.Mode.REGIONS_ONLY);

    @Test void readsFromRegionsInEveryMode() {
        try (TestCall call = new TestCall()) {
            long src = call.buffer(8, false), dst = call.buffer(8, true);
            NativeMemory.putLong(src, 0x0102030405060708L);
            for (int id : new int[] {PROBE_READ, PROBE_READ_USER, PROBE_READ_KERNEL}) {
                NativeMemory.putLong(dst, 0);
                assertThat(call.call(regionsOnly, id, dst, 8, src)).isZero();
                assertThat(NativeMemory.getLong(dst)).isEqualTo(0x0102030405060708L);
            }
        }
    }

    @Test void processModeReadsOtherMemoryThroughTheKernel() {
        try (TestCall call = new TestCall()) {
            long hidden = call.hidden(16), dst = call.buffer(16, true);
            NativeMemory.putLong(hidden + 8, 77);
            assertThat(call.call(process, PROBE_READ_KERNEL, dst, 16, hidden)).isZero();
            assertThat(NativeMemory.getLong(dst + 8)).isEqualTo(77);
            NativeMemory.putLong(dst + 8, 5);
            assertThat(call.call(regionsOnly, PROBE_READ_KERNEL, dst, 16, hidden)).isEqualTo(-Errno.EFAULT);
            assertThat(NativeMemory.read(dst, 16)).containsOnly(0);
        }
    }

    @Test void unmappedAddressesFaultCleanlyAndZeroFill() {
        try (TestCall call = new TestCall()) {
            long dst = call.buffer(32, true);
            for (long bad : new long[] {0, 8, 0xffff800000000000L, -4096L, 0x7fff_ffff_f000L}) {
                NativeMemory.setMemory(dst, 32, (byte) 0x5a);
                assertThat(call.call(process, PROBE_READ, dst, 32, bad)).as("read at %x", bad).isEqualTo(-Errno.EFAULT);
                assertThat(NativeMemory.read(dst, 32)).containsOnly(0);
                NativeMemory.setMemory(dst, 32, (byte) 0x5a);
                assertThat(call.call(process, PROBE_READ_STR, dst, 32, bad)).isEqualTo(-Errno.EFAULT);
                assertThat(NativeMemory.read(dst, 32)).containsOnly(0);
            }
            assertThat(call.call(process, PROBE_READ, dst, 0, 0)).isZero();
        }
    }

    @Test void strVariantsCopyUpToNulAndTruncate() {
        try (TestCall call = new TestCall()) {
            long s = call.cstring("hello");
            long dst = call.buffer(16, true);
            for (int id : new int[] {PROBE_READ_STR, PROBE_READ_USER_STR, PROBE_READ_KERNEL_STR}) {
                NativeMemory.setMemory(dst, 16, (byte) 'x');
                assertThat(call.call(regionsOnly, id, dst, 16, s)).isEqualTo(6);
                assertThat(new String(NativeMemory.read(dst, 6), StandardCharsets.US_ASCII)).isEqualTo("hello\0");
                assertThat(NativeMemory.getByte(dst + 6)).isEqualTo((byte) 'x'); // not padded on success
            }
            assertThat(call.call(regionsOnly, PROBE_READ_STR, dst, 3, s)).isEqualTo(3);
            assertThat(new String(NativeMemory.read(dst, 3), StandardCharsets.US_ASCII)).isEqualTo("he\0");
            assertThat(call.call(regionsOnly, PROBE_READ_STR, dst, 0, s)).isZero();
            // a string running past the end of its region (no NUL inside) faults in REGIONS_ONLY mode
            long unterminated = call.buffer(4, false);
            NativeMemory.write(unterminated, "abcd".getBytes(StandardCharsets.US_ASCII), 0, 4);
            assertThat(call.call(regionsOnly, PROBE_READ_STR, dst, 16, unterminated)).isEqualTo(-Errno.EFAULT);
            // like the kernel, size bytes are read (the last one becomes the NUL): 4 readable bytes fit size 4, not 5
            assertThat(call.call(regionsOnly, PROBE_READ_STR, dst, 4, unterminated)).isEqualTo(4);
            assertThat(new String(NativeMemory.read(dst, 4), StandardCharsets.US_ASCII)).isEqualTo("abc\0");
            assertThat(call.call(regionsOnly, PROBE_READ_STR, dst, 5, unterminated)).isEqualTo(-Errno.EFAULT);
        }
    }

    @Test void destinationMustBeWritableByTheProgram() {
        try (TestCall call = new TestCall()) {
            long ro = call.buffer(8, false);
            assertThatThrownBy(() -> call.call(process, PROBE_READ, ro, 8, ro))
                    .isInstanceOf(BpfRuntimeException.class).hasMessageContaining("bpf_probe_read dst (r1)");
            long dst = call.buffer(8, true);
            assertThatThrownBy(() -> call.call(process, PROBE_READ_STR, dst, 9, ro)).hasMessageContaining("not writable");
        }
    }
}
