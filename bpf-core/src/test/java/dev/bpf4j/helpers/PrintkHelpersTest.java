package dev.bpf4j.helpers;

import dev.bpf4j.maps.Errno;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.runtime.HelperIds.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PrintkHelpersTest {
    private final List<String> lines = new ArrayList<>();
    private final HelperRegistry reg = BpfHelpers.registry(MapTable.of(List.of()),
            BpfHelpers.Options.defaults().withTraceSink(lines::add));

    private long printk(TestCall call, String fmt, long... args) {
        long f = call.cstring(fmt);
        long[] a = java.util.Arrays.copyOf(args, 3);
        return call.call(reg, TRACE_PRINTK, f, fmt.length() + 1, a[0], a[1], a[2]);
    }

    @Test void tracePrintkFormatsIntegersAsTheKernel() {
        try (TestCall call = new TestCall()) {
            assertThat(printk(call, "a=%d b=%u c=%x\n", -1, -1, 255)).isEqualTo("a=-1 b=4294967295 c=ff\n".length());
            assertThat(printk(call, "%ld %lu %lld", -1, -1, Long.MIN_VALUE)).isPositive();
            assertThat(printk(call, "%llx %llu %i", -1, 1L << 40, 0x1_0000_0005L)).isPositive();
            assertThat(printk(call, "%5d|%-5d|%05d", 42, 42, -42)).isPositive();
            assertThat(printk(call, "%+d % d", 7, 7)).isPositive();
            assertThat(printk(call, "%c%c %X %%", 'o', 'k', 0xabc)).isPositive();
            assertThat(lines).containsExactly("a=-1 b=4294967295 c=ff\n", "-1 18446744073709551615 -9223372036854775808",
                    "ffffffffffffffff 1099511627776 5", "   42|42   |-0042", "+7  7", "ok ABC %");
        }
    }

    @Test void tracePrintkStringsPointersAndFaults() {
        try (TestCall call = new TestCall()) {
            long s = call.cstring("world");
            long ip = call.buffer(4, false);
            NativeMemory.write(ip, new byte[] {10, 0, 0, 1}, 0, 4);
            printk(call, "hi %s!", s);
            printk(call, "[%s]", 8); // unreadable string argument prints empty
            printk(call, "%p %px", 0x1234, 0xabcdef);
            printk(call, "%pI4 %pi4", ip, ip);
            printk(call, "%pks,%pus", s, s);
            assertThat(lines).containsExactly("hi world!", "[]", "0000000000001234 0000000000abcdef",
                    "10.0.0.1 010.000.000.001", "world,world");
        }
    }

    /** Linux 6.18 takes bytes from 0x80 up (UTF-8) as text (the fuzzer's kernel oracle found bpf4j refusing them). */
    @Test void tracePrintkCopiesBytesAboveAscii() {
        try (TestCall call = new TestCall()) {
            long f = call.cstring("caf\u00e9");
            assertThat(call.call(reg, TRACE_PRINTK, f, 5)).isEqualTo(4); // "caf\xe9" and its NUL: 4 bytes printed
            assertThat(lines).hasSize(1);
        }
    }

    @Test void tracePrintkRejectsWhatTheKernelRejects() {
        try (TestCall call = new TestCall()) {
            assertThat(printk(call, "%d %d %d %d", 1, 2, 3)).isEqualTo(-Errno.EINVAL); // 4 conversions, 3 args
            assertThat(printk(call, "%z", 1)).isEqualTo(-Errno.EINVAL);
            assertThat(printk(call, "%f", 1)).isEqualTo(-Errno.EINVAL);
            assertThat(printk(call, "%pZ", 1)).isEqualTo(-Errno.EINVAL);
            assertThat(printk(call, "%sx", 1)).isEqualTo(-Errno.EINVAL);
            assertThat(printk(call, "bell\u0007")).isEqualTo(-Errno.EINVAL); // ASCII control characters
            assertThat(printk(call, "del\u007f")).isEqualTo(-Errno.EINVAL);
            long f = call.cstring("no nul");
            assertThat(call.call(reg, TRACE_PRINTK, f, 6)).isEqualTo(-Errno.EINVAL); // NUL outside fmt_size
            assertThatThrownBy(() -> call.call(reg, TRACE_PRINTK, f, 100)).hasMessageContaining("bpf_trace_printk fmt (r1)");
            assertThat(lines).isEmpty();
        }
    }

    @Test void snprintfTruncatesAndReturnsLengthPlusNul() {
        try (TestCall call = new TestCall()) {
            long fmt = call.cstring("%d-%s-%llx");
            long str = call.cstring("ab");
            long data = call.buffer(24, false);
            NativeMemory.putLong(data, 12);
            NativeMemory.putLong(data + 8, str);
            NativeMemory.putLong(data + 16, 0xfeed);
            long out = call.buffer(32, true);
            assertThat(call.call(reg, SNPRINTF, out, 32, fmt, data, 24)).isEqualTo("12-ab-feed".length() + 1);
            assertThat(cstr(out)).isEqualTo("12-ab-feed");
            NativeMemory.setMemory(out, 32, (byte) 'x');
            assertThat(call.call(reg, SNPRINTF, out, 4, fmt, data, 24)).isEqualTo(11);
            assertThat(cstr(out)).isEqualTo("12-");
            assertThat(call.call(reg, SNPRINTF, 0, 0, fmt, data, 24)).isEqualTo(11);
            assertThat(call.call(reg, SNPRINTF, out, 32, fmt, data, 20)).isEqualTo(-Errno.EINVAL);
            assertThat(call.call(reg, SNPRINTF, out, 32, fmt, data, 16)).isEqualTo(-Errno.EINVAL); // 3 specs, 2 args
            assertThat(call.call(reg, SNPRINTF, out, 32, fmt, 0, 8)).isEqualTo(-Errno.EINVAL);
            assertThat(call.call(reg, SNPRINTF, out, 32, fmt, data, 13 * 8)).isEqualTo(-Errno.EINVAL);
            long hidden = call.hidden(8);
            assertThatThrownBy(() -> call.call(reg, SNPRINTF, out, 32, hidden, data, 24)).hasMessageContaining("bpf_snprintf fmt (r3)");
            assertThatThrownBy(() -> call.call(reg, SNPRINTF, out, 33, fmt, data, 24)).hasMessageContaining("str (r1)");
        }
    }

    private static String cstr(long a) {
        byte[] b = NativeMemory.read(a, 32);
        int n = 0;
        while (b[n] != 0) n++;
        return new String(b, 0, n, StandardCharsets.ISO_8859_1);
    }
}
