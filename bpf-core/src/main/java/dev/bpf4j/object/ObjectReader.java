package dev.bpf4j.object;

import dev.bpf4j.runtime.LoadPhase;
import dev.bpf4j.btf.Btf;
import dev.bpf4j.btf.BtfExt;
import dev.bpf4j.elf.ByteView;
import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.elf.ElfSection;

import java.util.ArrayList;
import java.util.List;

import static dev.bpf4j.runtime.LoadPhase.error;

/**
 * Parses an object in named linear phases, in the manner of cilium/ebpf's ELF reader: each phase
 * reads what the earlier ones found, and every error is prefixed with the phase it happened in
 * ("load maps: map 'x': unknown field 'y'").
 */
final class ObjectReader {
    private ObjectReader() {}

    static BpfObjectSpec load(byte[] data, String objectName) {
        ElfFile elf = ElfFile.parse(data);
        ObjectContext ctx = new ObjectContext(elf, objectName);
        LoadPhase.run("load sections", () -> classifySections(ctx));
        LoadPhase.run("load license", () -> loadLicense(ctx));
        LoadPhase.run("load version", () -> loadVersion(ctx));
        LoadPhase.run("load BTF", () -> loadBtf(ctx));
        LoadPhase.run("load maps", () -> {
            LegacyMapParser.parse(ctx);
            BtfMapParser.parse(ctx);
            GlobalDataMaps.parse(ctx);
        });
        LoadPhase.run("load programs", () -> FunctionTable.parse(ctx));
        List<ProgramSpec> programs = LoadPhase.run("apply relocations", () -> {
            RelocationCollector.collect(ctx);
            return ProgramLinker.link(ctx);
        });
        return new BpfObjectSpec(objectName, ctx.license, ctx.kernelVersion, programs, new ArrayList<>(ctx.maps.values()), ctx.btf);
    }

    private static void classifySections(ObjectContext ctx) {
        for (ElfSection s : ctx.elf.sections()) {
            switch (s.name()) {
                case ".text": if (s.isExecutable() && ctx.textIndex < 0) ctx.textIndex = s.index(); break;
                case "maps": ctx.legacyMapsIndex = unique(ctx.legacyMapsIndex, s); break;
                case ".maps": ctx.btfMapsIndex = unique(ctx.btfMapsIndex, s); break;
                case ".struct_ops": case ".struct_ops.link":
                    throw error("%s: struct_ops maps are not supported yet", s.describe());
                default: break;
            }
        }
    }

    private static int unique(int previous, ElfSection s) {
        if (previous >= 0) throw error("%s: a second section of that name (the first is section %d)", s.describe(), previous);
        return s.index();
    }

    /** The {@code license} section: a NUL-terminated string (libbpf keeps what precedes the first NUL). */
    private static void loadLicense(ObjectContext ctx) {
        ElfSection s = ctx.elf.section("license").orElse(null);
        if (s == null) return;
        ByteView v = ctx.elf.view(s);
        int end = 0;
        while (end < v.length() && v.u8(end) != 0) end++;
        ctx.license = new String(v.bytes(0, end), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The {@code version} section: one u32, the kernel version kprobe programs were built for. */
    private static void loadVersion(ObjectContext ctx) {
        ElfSection s = ctx.elf.section("version").orElse(null);
        if (s == null) return;
        if (s.size() != 4 || !s.hasFileData()) throw error("%s must hold exactly 4 bytes, has %d", s.describe(), s.size());
        ctx.kernelVersion = ctx.elf.view(s).s32(0);
    }

    private static void loadBtf(ObjectContext ctx) {
        ElfSection btf = ctx.elf.section(".BTF").orElse(null);
        ElfSection ext = ctx.elf.section(".BTF.ext").orElse(null);
        if (btf != null) ctx.btf = Btf.parse(ctx.elf.view(btf));
        if (ext != null) {
            if (ctx.btf == null) throw error(".BTF.ext present without .BTF");
            ctx.btfExt = BtfExt.parse(ctx.elf.view(ext), ctx.btf);
        }
        if (ctx.btf != null) ctx.btf = DatasecFixup.apply(ctx);
    }
}
