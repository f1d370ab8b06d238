package dev.bpf4j.unwind;

import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfSymbol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The function symbols of one ELF file ({@code .symtab} and {@code .dynsym} merged), sorted by
 * address for lookup by an ELF virtual address. Immutable and compact: three parallel arrays.
 */
public final class FunctionSymbols {
    /** A symbol and how far into it an address lies. */
    public record Hit(String name, long offset) {}

    public static final FunctionSymbols EMPTY = new FunctionSymbols(new long[0], new long[0], new String[0]);

    private final long[] starts;
    private final long[] ends;
    private final String[] names;

    private FunctionSymbols(long[] starts, long[] ends, String[] names) {
        this.starts = starts;
        this.ends = ends;
        this.names = names;
    }

    /** Defined {@code STT_FUNC} and {@code STT_GNU_IFUNC} symbols of both tables. */
    public static FunctionSymbols of(ElfFile elf) {
        List<ElfSymbol> all = new ArrayList<>(elf.symbols().size() + elf.dynamicSymbols().size());
        for (List<ElfSymbol> table : List.of(elf.symbols(), elf.dynamicSymbols())) {
            for (ElfSymbol s : table) {
                boolean function = s.type() == ElfSymbol.STT_FUNC || s.type() == ElfSymbol.STT_GNU_IFUNC;
                if (function && !s.isUndefined() && s.value() != 0 && !s.name().isEmpty()) all.add(s);
            }
        }
        // By address; at one address choose as perf does: a sized symbol, global over weak over local,
        // fewer leading underscores, the shorter name (nm lists them all).
        all.sort(Comparator.comparingLong(ElfSymbol::value)
                .thenComparing(s -> s.size() == 0)
                .thenComparingInt(FunctionSymbols::bindingRank)
                .thenComparingInt(s -> leadingUnderscores(s.name()))
                .thenComparingInt(s -> s.name().length())
                .thenComparing(ElfSymbol::name));
        int n = 0;
        long[] starts = new long[all.size()], ends = new long[all.size()];
        String[] names = new String[all.size()];
        for (ElfSymbol s : all) {
            if (n > 0 && starts[n - 1] == s.value()) continue;
            starts[n] = s.value();
            ends[n] = s.value() + s.size();
            names[n] = s.name();
            n++;
        }
        // An unsized symbol (hand-written assembly) reaches to the next symbol, as perf's symbols__fixup_end does.
        for (int i = 0; i < n; i++) {
            if (ends[i] == starts[i]) ends[i] = i + 1 < n ? starts[i + 1] : starts[i] + 1;
        }
        return new FunctionSymbols(Arrays.copyOf(starts, n), Arrays.copyOf(ends, n), Arrays.copyOf(names, n));
    }

    private static int leadingUnderscores(String name) {
        int n = 0;
        while (n < name.length() && name.charAt(n) == '_') n++;
        return n;
    }

    private static int bindingRank(ElfSymbol s) {
        switch (s.binding()) {
            case ElfSymbol.STB_GLOBAL: return 0;
            case ElfSymbol.STB_WEAK: return 1;
            default: return 2;
        }
    }

    /** The function containing ELF virtual address {@code vaddr}, or null. */
    public Hit lookup(long vaddr) {
        int lo = 0, hi = starts.length - 1, found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(starts[mid], vaddr) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (found < 0 || Long.compareUnsigned(vaddr, ends[found]) >= 0) return null;
        return new Hit(names[found], vaddr - starts[found]);
    }

    /** The address of the function named {@code name}, or -1 (only the chosen name of aliases is kept). */
    public long address(String name) {
        for (int i = 0; i < names.length; i++) if (names[i].equals(name)) return starts[i];
        return -1;
    }

    public int size() { return starts.length; }
}
