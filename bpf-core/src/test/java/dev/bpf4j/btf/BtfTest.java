package dev.bpf4j.btf;

import dev.bpf4j.elf.ElfFile;
import dev.bpf4j.object.Fixtures;
import dev.bpf4j.runtime.BpfLoadException;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Expected values come from {@code bpftool btf dump file btf_maps.o} / {@code globals.o}. */
class BtfTest {
    private static byte[] section(String fixture, String name) {
        ElfFile elf = ElfFile.parse(Fixtures.bytes(fixture));
        return elf.data(elf.section(name).orElseThrow());
    }

    @Test
    void parsesEveryTypeOfBtfMaps() {
        Btf btf = Btf.parse(section("btf_maps", ".BTF"));
        assertThat(btf.typeCount()).isEqualTo(63); // 62 types + void
        assertThat(btf.type(0)).isInstanceOf(BtfType.Void.class);
        assertThat(btf.type(1)).isEqualTo(new BtfType.Ptr(3));
        assertThat(btf.type(2)).isEqualTo(new BtfType.Int("int", 4, BtfType.Int.SIGNED, 0, 32));
        assertThat(btf.type(3)).isEqualTo(new BtfType.Array(2, 4, 2));
        assertThat(btf.type(6)).isEqualTo(new BtfType.Ref(BtfKind.TYPEDEF, "__u32", 7));
        assertThat(btf.type(12)).isEqualTo(new BtfType.Var("inner_a", 11, BtfType.Var.GLOBAL));
        BtfType.Composite value = (BtfType.Composite) btf.type(22);
        assertThat(value.name()).isEqualTo("value");
        assertThat(value.size()).isEqualTo(16);
        assertThat(value.members()).containsExactly(new BtfType.Member("packets", 9, 0, 0), new BtfType.Member("bytes", 9, 64, 0));
        assertThat(btf.type(16)).isEqualTo(new BtfType.Array(15, 4, 0));
        BtfType.FuncProto proto = (BtfType.FuncProto) btf.type(56);
        assertThat(proto.returnType()).isEqualTo(2);
        assertThat(proto.params()).containsExactly(new BtfType.Param("ctx", 54));
        assertThat(btf.type(57)).isEqualTo(new BtfType.Func("count", 56, 1));
        BtfType.Datasec maps = btf.datasec(".maps").orElseThrow();
        assertThat(maps.vars()).hasSize(8);
        assertThat(maps.vars().get(1)).isEqualTo(new BtfType.VarSecinfo(18, 0, 40));
        assertThat(btf.find(BtfKind.STRUCT, "xdp_md")).isEqualTo(55);
    }

    @Test
    void resolvesSizesThroughModifiersAndArrays() {
        Btf btf = Btf.parse(section("globals", ".BTF"));
        assertThat(btf.resolveSize(6)).isEqualTo(4);  // const volatile __u32
        assertThat(btf.resolveSize(11)).isEqualTo(8); // const volatile __u64
        assertThat(btf.resolveSize(18)).isEqualTo(32); // __u64[4]
        assertThat(btf.resolveSize(1)).isEqualTo(8);  // void *
        assertThat(btf.skipModsAndTypedefs(6)).isEqualTo(9);
        assertThat(btf.type(21)).isEqualTo(new BtfType.Var("CONFIG_HZ", 9, BtfType.Var.EXTERN));
        assertThatThrownBy(() -> btf.resolveSize(4)).isInstanceOf(BpfLoadException.class).hasMessageContaining("FUNC 'use_globals' (#4) has no size");
    }

    @Test
    void rejectsBadHeaderAndDanglingReferences() {
        byte[] raw = section("globals", ".BTF");
        byte[] magic = raw.clone();
        magic[0] = 0x12;
        assertThatThrownBy(() -> Btf.parse(magic)).hasMessageContaining("magic");
        byte[] typeLen = raw.clone();
        ByteBuffer.wrap(typeLen).order(ByteOrder.LITTLE_ENDIAN).putInt(12, 0x7fffffff);
        assertThatThrownBy(() -> Btf.parse(typeLen)).hasMessageContaining("type section");
        byte[] dangling = raw.clone();
        // type #1 is PTR at the start of the type section: point it at type 5000.
        int hdrLen = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).getInt(4);
        ByteBuffer.wrap(dangling).order(ByteOrder.LITTLE_ENDIAN).putInt(hdrLen + 8, 5000);
        assertThatThrownBy(() -> Btf.parse(dangling)).hasMessageContaining("type #1 refers to type #5000");
    }

    @Test
    void selfReferentialTypedefIsACycleNotAHang() {
        byte[] raw = section("globals", ".BTF");
        int hdrLen = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).getInt(4);
        // Walk to type #8 (TYPEDEF __u32 -> 9) and make it point to itself.
        int pos = hdrLen;
        for (int id = 1; id < 8; id++) pos += 12 + extra(raw, pos);
        ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).putInt(pos + 8, 8);
        Btf btf = Btf.parse(raw);
        assertThatThrownBy(() -> btf.resolveSize(8)).isInstanceOf(BpfLoadException.class).hasMessageContaining("deeper than 32");
    }

    private static int extra(byte[] raw, int pos) {
        int info = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).getInt(pos + 4);
        int kind = (info >>> 24) & 0x1f, vlen = info & 0xffff;
        switch (kind) {
            case 1: case 14: case 17: return 4;
            case 3: return 12;
            case 4: case 5: case 15: case 19: return 12 * vlen;
            case 6: case 13: return 8 * vlen;
            default: return 0;
        }
    }

    @Test
    void lineInfoOfSubprogObject() {
        ElfFile elf = ElfFile.parse(Fixtures.bytes("subprog"));
        Btf btf = Btf.parse(elf.data(elf.section(".BTF").orElseThrow()));
        BtfExt ext = BtfExt.parse(elf.view(elf.section(".BTF.ext").orElseThrow()), btf);
        assertThat(ext.funcInfos(".text")).extracting(FuncInfo::name).containsExactly("global_helper", "sum_squares", "square");
        assertThat(ext.funcInfos(".text")).extracting(FuncInfo::insnIndex).containsExactly(0, 3, 9);
        assertThat(ext.funcInfos("xdp")).extracting(FuncInfo::name).containsExactly("xdp_prog");
        LineInfo first = ext.lineInfos("xdp").get(0);
        assertThat(first.insnIndex()).isZero();
        assertThat(first.fileName()).isEqualTo("./src/subprog.c");
        assertThat(first.line()).isEqualTo(28);
        LineInfo ret = ext.lineInfos("xdp").get(1);
        assertThat(ret.sourceLine()).isEqualTo("\treturn square(2) + global_helper(1) > 10 ? XDP_PASS : XDP_DROP;");
        assertThat(ret.line()).isEqualTo(30);
        assertThat(ret.location()).startsWith("./src/subprog.c:30:");
    }
}
