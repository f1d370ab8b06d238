package dev.bpf4j.unwind;

import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfFormatException;
import dev.bpf4j.elf.ElfKind;
import dev.bpf4j.elf.ElfProgramHeader;
import dev.bpf4j.elf.ElfUnwindSections;
import dev.bpf4j.unwind.cfi.CfiFormatException;
import dev.bpf4j.unwind.cfi.ModuleCfi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One ELF file mapped into this process (the executable, a shared library). What unwinding needs —
 * program headers and call-frame information — is read on first use and kept; the function symbols
 * only when first asked for (naming frames), from a second read of the file: a profile's unwinder
 * then never pays for the symbols of libjvm.so (tens of thousands, read and sorted: about half a
 * second of its CPU), which are read when the profile is named, as {@code perf report} reads them
 * after {@code perf record}. A file that cannot be read or parsed gives a module without symbols,
 * and {@link #loadError()} says why.
 */
public final class NativeModule {
    /** Files larger than this are not read for symbols. */
    static final long MAX_FILE = 1L << 30;

    private final String path;
    private final String name;
    /** Where the bytes can still be read when the file was unlinked or replaced after mapping. */
    private final String mapFilesPath;
    private volatile Image image;
    private volatile Symbols symbols;

    private record Image(List<ElfProgramHeader> loads, ModuleCfi cfi, String error, String cfiError) {}

    private record Symbols(FunctionSymbols symbols, String error) {}

    NativeModule(String path, String mapFilesPath) {
        this.path = path.endsWith(" (deleted)") ? path.substring(0, path.length() - " (deleted)".length()) : path;
        int slash = this.path.lastIndexOf('/');
        this.name = slash >= 0 ? this.path.substring(slash + 1) : this.path;
        this.mapFilesPath = mapFilesPath;
    }

    /** The file's path as {@code /proc/self/maps} shows it. */
    public String path() { return path; }

    /** The file's base name ("libc.so.6"), used in printed frames. */
    public String name() { return name; }

    public FunctionSymbols symbols() {
        Symbols s = symbols;
        if (s == null) {
            synchronized (this) {
                if (symbols == null) symbols = loadSymbols();
                s = symbols;
            }
        }
        return s.symbols;
    }

    /** The module's call-frame information ({@code .eh_frame}); {@link ModuleCfi#NONE} when it has none or it is unreadable. */
    public ModuleCfi cfi() { return image().cfi; }

    /** Why the CFI could not be read (a malformed {@code .eh_frame_hdr}), or null. */
    public String cfiError() { return image().cfiError; }

    /** Why symbols could not be read, or null. */
    public String loadError() {
        symbols();
        return symbols.error != null ? symbols.error : image().error;
    }

    /**
     * The load bias of a mapping of file offset {@code fileOffset} at {@code start}: what to add to an
     * ELF virtual address to get a process address. From the PT_LOAD header that maps that offset;
     * when the headers are unknown, the usual {@code p_vaddr == p_offset} of shared objects is assumed.
     */
    public long bias(long start, long fileOffset) {
        for (ElfProgramHeader ph : image().loads) {
            if (ph.mapsFileOffset(fileOffset, ProcessCode.PAGE_SIZE)) return start - fileOffset + ph.offset() - ph.vaddr();
        }
        return start - fileOffset;
    }

    private Image image() {
        Image i = image;
        if (i == null) {
            synchronized (this) {
                if (image == null) image = load();
                i = image;
            }
        }
        return i;
    }

    /** Program headers and CFI, from a parse that skips the symbol tables. */
    private Image load() {
        String error = null;
        for (String candidate : new String[] {path, mapFilesPath}) {
            if (candidate == null) continue;
            try {
                Path p = Path.of(candidate);
                // The headers and CFI sections alone; anything unusual goes through the whole file's parse.
                ElfUnwindSections parts = ElfUnwindSections.read(p);
                ElfFile elf = null;
                if (parts == null) {
                    if (Files.size(p) > MAX_FILE) return new Image(List.of(), ModuleCfi.NONE, candidate + ": larger than " + MAX_FILE + " bytes", null);
                    elf = ElfFile.parseWithoutSymbols(Files.readAllBytes(p), ElfKind.NATIVE_X86_64);
                }
                List<ElfProgramHeader> loads = (parts != null ? parts.programHeaders() : elf.programHeaders()).stream().filter(ElfProgramHeader::isLoad).toList();
                // A bad CFI header leaves the rest usable.
                ModuleCfi cfi = ModuleCfi.NONE;
                String cfiError = null;
                try {
                    cfi = parts != null ? ModuleCfi.of(name, parts) : ModuleCfi.of(name, elf);
                } catch (CfiFormatException e) {
                    cfiError = e.getMessage();
                }
                return new Image(loads, cfi, null, cfiError);
            } catch (IOException | ElfFormatException | SecurityException e) {
                if (error == null) error = candidate + ": " + e.getMessage();
            }
        }
        return new Image(List.of(), ModuleCfi.NONE, error, null);
    }

    private Symbols loadSymbols() {
        String error = null;
        for (String candidate : new String[] {path, mapFilesPath}) {
            if (candidate == null) continue;
            try {
                Path p = Path.of(candidate);
                if (Files.size(p) > MAX_FILE) return new Symbols(FunctionSymbols.EMPTY, candidate + ": larger than " + MAX_FILE + " bytes");
                return new Symbols(FunctionSymbols.of(ElfFile.parse(Files.readAllBytes(p), ElfKind.NATIVE_X86_64)), null);
            } catch (IOException | ElfFormatException | SecurityException e) {
                if (error == null) error = candidate + ": " + e.getMessage();
            }
        }
        return new Symbols(FunctionSymbols.EMPTY, error);
    }

    @Override public String toString() { return path; }
}
