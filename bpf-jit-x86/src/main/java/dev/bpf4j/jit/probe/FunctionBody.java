package dev.bpf4j.jit.probe;

import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfKind;
import dev.bpf4j.elf.ElfSymbol;
import dev.bpf4j.unwind.ProcessCode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A function's extent from its ELF symbol ({@code st_size}, {@code .symtab} or {@code .dynsym}) and
 * the check that displacing its first instructions is safe: no instruction of the body jumps into
 * the middle of the displaced bytes (it would land inside the {@code call}). The body is decoded
 * linearly from the entry; a body the decoder cannot walk, or one with an indirect jump (a jump
 * table whose targets it cannot see), is refused, as Linux refuses to optimize such kprobes.
 */
final class FunctionBody {
    private FunctionBody() {}

    private static final Map<String, List<ElfSymbol>> SYMBOLS = new ConcurrentHashMap<>();
    /** Bodies larger than this are not scanned (and the function is refused). */
    static final long MAX_BODY = 1 << 20;

    /** The end address of the function starting at {@code function}, or a clear refusal. */
    static long end(String name, long function) {
        ProcessCode.NativeMapping m = ProcessCode.global().nativeMapping(function)
                .orElseThrow(() -> DisplacedInsns.refuse(name, function, "no file-backed executable mapping holds it, so no ELF symbol gives its size"));
        if (m.module() == null) throw DisplacedInsns.refuse(name, function, "its mapping " + m.mapping().path() + " is not an ELF file");
        long vaddr = function - m.bias();
        List<ElfSymbol> symbols = SYMBOLS.computeIfAbsent(m.module().path(), FunctionBody::read);
        long size = 0;
        for (ElfSymbol s : symbols) {
            if (s.value() == vaddr && s.size() > size) size = s.size();
        }
        if (size == 0) {
            throw DisplacedInsns.refuse(name, function, String.format("%s has no sized function symbol at 0x%x, so its body cannot be checked for jumps into the patched bytes",
                    m.module().name(), vaddr));
        }
        return function + size;
    }

    private static List<ElfSymbol> read(String path) {
        try {
            ElfFile elf = ElfFile.parse(Files.readAllBytes(Path.of(path)), ElfKind.NATIVE_X86_64);
            List<ElfSymbol> out = new java.util.ArrayList<>();
            for (List<ElfSymbol> t : List.of(elf.symbols(), elf.dynamicSymbols())) {
                for (ElfSymbol s : t) {
                    if ((s.type() == ElfSymbol.STT_FUNC || s.type() == ElfSymbol.STT_GNU_IFUNC) && !s.isUndefined()) out.add(s);
                }
            }
            return out;
        } catch (Exception e) {
            return List.of();
        }
    }

    /**
     * Refuses when an instruction of {@code body} (the function's bytes, read at {@code function})
     * branches into {@code (site, site + length)}: after patching that address is inside the call.
     */
    static void checkNoJumpInto(String name, long function, byte[] body, long site, int length) {
        int at = 0;
        while (at < body.length) {
            InsnDecoder.Insn i = InsnDecoder.decode(body, at);
            if (i == null) {
                throw DisplacedInsns.refuse(name, site, String.format("cannot decode its body at 0x%x (%s), so jumps into the patched bytes cannot be ruled out",
                        function + at, DisplacedInsns.hex(body, at, 8)));
            }
            if (i.flow() == InsnDecoder.Flow.INDIRECT_JUMP) {
                throw DisplacedInsns.refuse(name, site, String.format("an indirect jump at 0x%x (a jump table?) whose targets cannot be checked against the patched bytes",
                        function + at));
            }
            if (i.relSize() > 0) {
                long target = i.target(body, function + at);
                if (target > site && target < site + length) {
                    throw DisplacedInsns.refuse(name, site, String.format("the instruction at 0x%x jumps to 0x%x, inside the %d bytes the call would replace",
                            function + at, target, length));
                }
            }
            at = i.end();
        }
    }
}
