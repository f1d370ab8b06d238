package dev.bpf4j.jit;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.asm.Assembler;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf_strncmp (id 182) on the interpreter and the JIT: s1 on the stack, s2 a constant string in a read-only
 * region (as a frozen .rodata value), results -1/0/1 as the kernel's strncmp, and its prototype's rules as
 * BAD_HELPER_ARGUMENT at the call on both engines.
 */
class StrncmpDifferentialTest {
    static final int RO = 64;

    /** The kernel's strncmp over Java bytes (a NUL past the array's end). */
    static long reference(byte[] s1, int count, byte[] s2) {
        for (int i = 0; i < count; i++) {
            int c1 = i < s1.length ? s1[i] & 0xff : 0, c2 = i < s2.length ? s2[i] & 0xff : 0;
            if (c1 != c2) return c1 < c2 ? -1 : 1;
            if (c1 == 0) break;
        }
        return 0;
    }

    /**
     * Stores {@code s1} (at most 32 bytes) at r10-32, then {@code bpf_strncmp(r10 - 32, size, s2)}; the call is at pc
     * {@link #CALL_PC}. {@code s2} is the address of the string.
     */
    static Program program(byte[] s1, long size, long s2) {
        StringBuilder a = new StringBuilder();
        for (int i = 0; i < 32; i++) a.append(String.format("stb [%%r10-%d], %d%n", 32 - i, i < s1.length ? s1[i] : 0));
        a.append("mov %r1, %r10\nadd %r1, -32\n");
        a.append(String.format("lddw %%r2, 0x%x%n", size));
        a.append(String.format("lddw %%r3, 0x%x%n", s2));
        a.append("call ").append(HelperIds.STRNCMP).append("\nexit\n");
        return Assembler.assembleProgram("strncmp", a.toString());
    }

    static final int CALL_PC = 32 + 2 + 2 + 2;

    /** r0 or the error kind@pc, on {@code engine}, with {@code s2Text} in a region that is writable or not. */
    static String outcome(Engine engine, byte[] s1, long size, byte[] s2Text, boolean s2Writable) {
        long ro = NativeMemory.allocate(RO);
        try (MapTable maps = MapTable.create(List.of())) {
            NativeMemory.setMemory(ro, RO, (byte) 'x');
            NativeMemory.write(ro, s2Text, 0, s2Text.length);
            LoadOptions o = LoadOptions.defaults().withHelpers(BpfHelpers.registry(maps));
            RunContext ctx = RunContext.builder().region(new MemoryRegion("rodata", ro, RO, s2Writable)).build();
            try (Executable x = Bpf.load(program(s1, size, ro), engine, o)) {
                return "r0=" + x.run(ctx);
            } catch (BpfRuntimeException e) {
                return e.kind() + "@" + e.pc() + ": " + e.reason().replaceAll("0x[0-9a-f]{6,}", "ADDR"); // the engines' frames differ
            } catch (dev.bpf4j.verifier.VerifierException e) {
                return "rejected@" + e.pc() + ": " + e.reason();
            }
        } finally {
            NativeMemory.free(ro);
        }
    }

    static String agree(byte[] s1, long size, byte[] s2Text, boolean s2Writable) {
        String interp = outcome(Both.INTERP, s1, size, s2Text, s2Writable);
        assertThat(outcome(Jit.ENGINE, s1, size, s2Text, s2Writable)).as("s1=%s size=%d s2=%s", Arrays.toString(s1), size,
                Arrays.toString(s2Text)).isEqualTo(interp);
        return interp;
    }

    static byte[] c(String s) { return (s + "\0").getBytes(StandardCharsets.ISO_8859_1); }

    static byte[] b(String s) { return s.getBytes(StandardCharsets.ISO_8859_1); }

    @Test void comparesAsTheKernelsStrncmp() {
        Object[][] cases = {
            {c("hello"), 6, c("hello")},          // equal, NUL included
            {c("hello"), 32, c("hello")},         // count past both NULs
            {c("hello"), 3, c("help")},           // equal in the first 3
            {c("hello"), 4, c("help")},           // 'l' < 'p'
            {c("help"), 4, c("hello")},           // 'p' > 'l'
            {c("abc"), 8, c("abcd")},             // s1 ends first
            {c("abcd"), 8, c("abc")},             // s2 ends first
            {b("abcdefgh"), 8, c("abcdefgh")},    // s1 without NUL within s1_sz
            {c("\u00ff"), 2, c("a")},             // bytes compare unsigned: 0xff > 'a'
            {c(""), 1, c("")},
            {c(""), 4, c("x")},
        };
        for (Object[] k : cases) {
            byte[] s1 = (byte[]) k[0], s2 = (byte[]) k[2];
            int size = (int) k[1];
            long want = reference(s1, size, s2);
            assertThat(agree(s1, size, s2, false)).as("%s vs %s over %d", new String(s1, StandardCharsets.ISO_8859_1),
                    new String(s2, StandardCharsets.ISO_8859_1), size).isEqualTo("r0=" + want);
        }
    }

    @Test void s2MustBeAConstantString() {
        assertThat(agree(c("abc"), 4, c("abc"), true)) // a writable region: the stack, a map that is not frozen
                .startsWith("BAD_HELPER_ARGUMENT@" + CALL_PC + ": bpf_strncmp s2 (r3): the string at ADDR is writable").endsWith("frozen .rodata)");
        assertThat(agree(c("abc"), 4, b("x".repeat(RO)), false))
                .startsWith("BAD_HELPER_ARGUMENT@" + CALL_PC + ": bpf_strncmp s2 (r3): byte 64 of the string").contains("no NUL before it");
    }

    @Test void s1MustBeReadableForAllOfItsNonZeroSize() {
        // With constant sizes the verifier decides, as Linux's does for ARG_CONST_SIZE
        assertThat(agree(c("abc"), 0, c("abc"), false))
                .isEqualTo("rejected@" + CALL_PC + ": R2 invalid zero-sized read: u64=[0,0]");
        assertThat(agree(c("abc"), 33, c("abc"), false)) // 32 bytes of frame above r10-32
                .startsWith("rejected@" + CALL_PC + ": invalid stack off=-32 size=33");
        assertThat(agree(c("abc"), 0x1_0000_0004L, c("abc"), false))
                .startsWith("rejected@" + CALL_PC + ": R2 unbounded memory access");
    }
}
