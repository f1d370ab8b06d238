package dev.bpf4j.unwind;

import com.kenai.jffi.Library;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The symbolizer against binutils: every function nm lists in the gcc-built test library (its
 * .symtab, locals included) and in libc (.dynsym; libc has no .symtab) resolves to that name — or
 * an alias at the same address — at its first and last byte, with the load bias that dlsym proves.
 */
class SymbolizerTest {
    private final ProcessCode code = new ProcessCode(new CodeMap(), ProcMaps::read, 0);
    private final Symbolizer symbolizer = new Symbolizer(code, new SyntheticFrames());

    @Test
    void testLibrarySymbolsMatchNm() {
        Path so = CallChain.library();
        List<Nm.Symbol> nm = Nm.functions(so, false);
        long bias = CallChain.symbol("a") - Nm.value(nm, "a");
        assertThat(code.nativeMapping(CallChain.symbol("a")).orElseThrow().bias()).isEqualTo(bias);
        int checked = checkAll(nm, bias, so.getFileName().toString());
        assertThat(nm.stream().map(Nm.Symbol::name)).contains("a", "b", "c", "frame_dummy");
        assertThat(checked).isEqualTo(nm.size());
    }

    @Test
    void libcDynamicSymbolsMatchNmD() {
        ProcMaps.Mapping libc = ProcMaps.read().stream()
                .filter(m -> m.executable() && m.fileBacked() && m.path().matches(".*/libc\\.so\\.6"))
                .findFirst().orElseThrow(() -> new AssertionError("libc.so.6 is not mapped"));
        List<Nm.Symbol> nm = Nm.functions(Path.of(libc.path()), true);
        long getpid = Library.getDefault().getSymbolAddress("getpid");
        long bias = getpid - Nm.value(nm, "getpid");
        assertThat(code.nativeMapping(getpid).orElseThrow().bias()).isEqualTo(bias);
        assertThat(symbolizer.symbolize(getpid).toString()).isIn("libc.so.6!getpid", "libc.so.6!__getpid");
        assertThat(checkAll(nm, bias, "libc.so.6")).isGreaterThan(1000);
    }

    /** Checks first and last byte of every symbol; returns how many were checked. */
    private int checkAll(List<Nm.Symbol> nm, long bias, String module) {
        int checked = 0;
        for (Nm.Symbol s : nm) {
            checkAt(nm, bias, module, s.value());
            if (s.size() > 1) checkAt(nm, bias, module, s.value() + s.size() - 1);
            checked++;
        }
        return checked;
    }

    private void checkAt(List<Nm.Symbol> nm, long bias, String module, long vaddr) {
        Frame f = symbolizer.symbolize(bias + vaddr);
        // Any symbol nm places over this address is a right answer (aliases, weak and strong names).
        Set<String> candidates = nm.stream().filter(s -> s.contains(vaddr)).map(Nm.Symbol::name).collect(Collectors.toSet());
        assertThat(f.module()).isEqualTo(module);
        assertThat(f.symbol()).as("0x%x in %s: %s", vaddr, module, candidates).isIn(candidates);
        long start = nm.stream().filter(s -> s.name().equals(f.symbol()) && s.contains(vaddr)).findFirst().orElseThrow().value();
        assertThat(f.offset()).isEqualTo(vaddr - start);
    }

    @Test
    void jitRegionsAndUnknownAddresses() {
        CodeMap jit = new CodeMap();
        jit.register(new CodeRegion(0x7000_0000_1000L, 0x100, "bpf_prog_0123456789abcdef_f", "bpf4j", List.of()));
        Symbolizer s = new Symbolizer(new ProcessCode(jit, ProcMaps::read, 0), new SyntheticFrames());
        assertThat(s.symbolize(0x7000_0000_1010L).toString()).isEqualTo("bpf4j!bpf_prog_0123456789abcdef_f+0x10");
        assertThat(s.symbolize(0x7000_0000_1000L).toString()).isEqualTo("bpf4j!bpf_prog_0123456789abcdef_f");
        // A return address at the very end of a region belongs to it (the call was its last instruction).
        assertThat(s.symbolizeReturnAddress(0x7000_0000_1100L).toString()).isEqualTo("bpf4j!bpf_prog_0123456789abcdef_f+0x100");
        assertThat(s.symbolize(0x10).toString()).isEqualTo("[unknown]");
        assertThat(s.symbolize(0x10).known()).isFalse();
    }

    @Test
    void framesPrint() {
        assertThat(new Frame(1, "libc.so.6", "malloc", 0x1a).toString()).isEqualTo("libc.so.6!malloc+0x1a");
        assertThat(new Frame(1, "libc.so.6", null, 0x891f5).toString()).isEqualTo("libc.so.6+0x891f5");
        assertThat(new Frame(1, null, "Foo.bar(Foo.java:3)", 0).toString()).isEqualTo("Foo.bar(Foo.java:3)");
        assertThat(Frame.unknown(5).toString()).isEqualTo("[unknown]");
    }
}
