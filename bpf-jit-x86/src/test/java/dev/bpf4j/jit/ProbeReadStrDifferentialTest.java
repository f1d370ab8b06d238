package dev.bpf4j.jit;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.bpf4j.jit.ProbeReadDifferentialTest.Operand;
import static dev.bpf4j.jit.ProbeReadDifferentialTest.Way;
import static dev.bpf4j.jit.ProbeReadDifferentialTest.agree;
import static dev.bpf4j.jit.ProbeReadDifferentialTest.outcome;
import static dev.bpf4j.jit.ProbeReadDifferentialTest.pages;
import static dev.bpf4j.jit.ProbeReadDifferentialTest.program;
import static dev.bpf4j.runtime.HelperIds.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * {@code bpf_probe_read_str}, {@code _user_str} and {@code _kernel_str} on the interpreter, on the JIT with their
 * native form ({@code ProbeReadStrEmitter}, where dst lies in the frame) and on the JIT with the Java bodies
 * forced, over {@link ProbeReadDifferentialTest}'s harness: the same r0, the same 512 frame bytes (the 0x5a
 * filler shows what dst keeps after the NUL) and the same errors (kind and pc). Strings of length 0, 1,
 * around 8 and 16 (the native copy's words), size - 9 to size and longer, and with no NUL before an unreadable page; sources in a region (all
 * size bytes: copied directly; running past its end into PROT_NONE: page by page), outside every region
 * (process_vm_readv, one page or across two), in the frame, and the bad addresses of the plain reads. The
 * JIT with native forms must not call the Java body where dst is in the frame.
 */
class ProbeReadStrDifferentialTest {
    static final int[] IDS = {PROBE_READ_STR, PROBE_READ_USER_STR, PROBE_READ_KERNEL_STR};
    static final int[] SIZES = {0, 1, 2, 7, 8, 9, 64, 255, 512};
    static final int PAGE = GuardedPages.PAGE;

    /** Three readable pages in no region: strings crossing from one into the next need two system calls. */
    static long outside;

    @BeforeAll static void map() {
        HelperSpec s = BpfHelpers.registry(MapTable.create(List.of())).lookup(PROBE_READ_STR).orElseThrow();
        assumeThat(s.nativeForm()).as("process_vm_readv in libc").isNotNull();
        ProbeReadDifferentialTest.map();
        outside = NativeMemory.allocate(4L * PAGE);
    }

    @AfterAll static void unmap() {
        ProbeReadDifferentialTest.unmap();
        NativeMemory.free(outside);
    }

    /** Fills {@code [at, at + n)} with non-NUL letters. */
    static void letters(long at, long n) {
        for (long i = 0; i < n; i++) NativeMemory.putByte(at + i, (byte) ('a' + i % 26));
    }

    /** A string of {@code length} letters and its NUL at {@code at}, letters after it up to {@code end}. */
    static void string(long at, int length, long end) {
        letters(at, end - at);
        if (at + length < end) NativeMemory.putByte(at + length, (byte) 0);
    }

    /** The agreed outcome of reading into r10-512 (r10-512 .. r10-1 all dst for size 512), asserting no body call natively. */
    static void nativeAgrees(int id, int size, long src, String what) {
        String w = String.format("helper %d size %d src 0x%x: %s", id, size, src, what);
        assertThat(agree(program(id, Operand.frame(512), size, Operand.at(src)), false, w)).as("JIT native calls no Java body: %s", w).isZero();
    }

    static int[] lengths(int size) {
        // around the native copy's 8-byte words too
        return java.util.stream.IntStream.of(0, 1, 7, 8, 9, 16, 17, size - 9, size - 8, size - 2, size - 1, size, size + 5)
                .filter(n -> n >= 0 && n <= size + 5).distinct().toArray();
    }

    @Test void stringsInARegionAreCopiedDirectly() {
        long readable = pages.readable;
        for (int id : IDS) {
            for (int size : SIZES) {
                for (int length : lengths(size)) {
                    string(readable + 100, length, readable + PAGE);
                    nativeAgrees(id, size, readable + 100, "in the region, length " + length);
                }
            }
        }
    }

    @Test void stringsEndingAtTheRegionsEndBeforeAnUnreadablePage() {
        // all size bytes in the region, the last one just before PROT_NONE: copied directly, and a word read
        // one byte too far would fault (the JVM would die)
        long end = pages.readable + PAGE;
        for (int id : IDS) {
            for (int size = 1; size <= 513; size += size < 24 ? 1 : 61) {
                for (int length : new int[] {size - 1, size, size / 2}) {
                    string(end - size, length, end);
                    nativeAgrees(id, size, end - size, "ending at the region's end, length " + length);
                }
            }
        }
    }

    @Test void stringsRunningOffTheRegionIntoAnUnreadablePage() {
        long end = pages.readable + PAGE;
        for (int id : IDS) {
            for (int size : SIZES) {
                for (int before : new int[] {1, 5, 8, 96}) {
                    // src + size past the region: the body reads page by page; a NUL before the page end is read, none is -EFAULT
                    for (int length : new int[] {0, before - 1, before}) {
                        string(end - before, length, end);
                        nativeAgrees(id, size, end - before, before + " bytes before PROT_NONE, length " + length);
                    }
                }
            }
        }
    }

    @Test void stringsOutsideEveryRegion() {
        long boundary = (outside + 2L * PAGE) & -PAGE; // a page boundary with a readable page on both sides
        for (int id : IDS) {
            for (int size : SIZES) {
                for (int length : lengths(size)) {
                    string(outside + 8, length, outside + 4L * PAGE);
                    nativeAgrees(id, size, outside + 8, "one page, length " + length);
                    for (int before : new int[] {1, 7, 100}) {
                        string(boundary - before, length, outside + 4L * PAGE);
                        nativeAgrees(id, size, boundary - before, before + " bytes before a page boundary, length " + length);
                    }
                }
            }
        }
    }

    @Test void badSources() {
        for (int id : IDS) {
            for (int size : SIZES) {
                for (long src : ProbeReadDifferentialTest.sources()) {
                    if (src == ProbeReadDifferentialTest.hidden + 3 || src == pages.readable + 100) continue; // strings above
                    nativeAgrees(id, size, src, "bad source");
                }
            }
        }
    }

    @Test void sourcesInTheFrame() {
        // the frame holds 0x000000005a5a5a5a words: a 4-byte string at each 8-byte slot, none at slot + 4
        for (int id : IDS) {
            for (int size : new int[] {1, 3, 4, 5, 200}) {
                assertThat(agree(program(id, Operand.frame(256), size, Operand.frame(512)), false, "disjoint " + size)).isZero();
                assertThat(agree(program(id, Operand.frame(256), size, Operand.frame(508)), false, "at a NUL " + size)).isZero();
            }
            // overlapping either way: the body
            agree(program(id, Operand.frame(256), 200, Operand.frame(300)), false, "src below dst, overlapping");
            agree(program(id, Operand.frame(300), 200, Operand.frame(256)), false, "src above dst, overlapping");
            agree(program(id, Operand.frame(300), 13, Operand.frame(300)), false, "src = dst");
        }
    }

    @Test void destinationsOutsideTheFrameAndWideR2CallTheBody() {
        long out = ProbeReadDifferentialTest.out, readable = pages.readable;
        string(readable + 8, 20, readable + PAGE);
        for (int id : IDS) {
            assertThat(agree(program(id, Operand.at(out + 512), 32, Operand.at(readable + 8)), false, "dst in a region")).isEqualTo(1);
            agree(program(id, Operand.at(ProbeReadDifferentialTest.readOnly), 8, Operand.at(readable + 8)), false, "read-only dst");
            agree(program(id, Operand.frame(8), 9, Operand.at(readable + 8)), false, "one past r10");
            assertThat(agree(program(id, Operand.frame(64), (1L << 32) | 24, Operand.at(readable + 8)), false, "r2 above 32 bits")).isZero();
            assertThat(agree(program(id, Operand.frame(8), 8, Operand.at(readable + 8)), false, "frame top")).isZero();
        }
    }

    @Test void verifiedPrograms() {
        long readable = pages.readable;
        string(readable + 1, 30, readable + PAGE);
        for (int id : IDS) {
            for (long src : new long[] {readable + 1, pages.protNone - 4, pages.unmapped, 0}) {
                Program p = ProbeReadDifferentialTest.verifiable(id, 40, src);
                String interp = outcome(Way.INTERP, p, true);
                assertThat(outcome(Way.JIT_NATIVE, p, true)).isEqualTo(interp.replaceAll("javaCalls=\\d+$", "javaCalls=0"));
                assertThat(outcome(Way.JIT_JAVA, p, true)).isEqualTo(interp);
            }
        }
    }
}
