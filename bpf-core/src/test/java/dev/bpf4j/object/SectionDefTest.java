package dev.bpf4j.object;

import dev.bpf4j.maps.MapType;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class SectionDefTest {
    private static ProgramType type(String section) { return SectionDef.find(section).map(SectionDef::type).orElse(ProgramType.UNSPEC); }

    @Test
    void mapsSectionNamesAsLibbpf() {
        assertThat(type("xdp")).isEqualTo(ProgramType.XDP);
        assertThat(type("xdp.frags")).isEqualTo(ProgramType.XDP);
        assertThat(type("tc")).isEqualTo(ProgramType.SCHED_CLS);
        assertThat(type("classifier")).isEqualTo(ProgramType.SCHED_CLS);
        assertThat(type("socket")).isEqualTo(ProgramType.SOCKET_FILTER);
        assertThat(type("kprobe/sys_open")).isEqualTo(ProgramType.KPROBE);
        assertThat(type("kprobe")).isEqualTo(ProgramType.KPROBE);
        assertThat(type("kretprobe/x")).isEqualTo(ProgramType.KPROBE);
        assertThat(type("uprobe/x")).isEqualTo(ProgramType.KPROBE);
        assertThat(type("perf_event")).isEqualTo(ProgramType.PERF_EVENT);
        assertThat(type("tracepoint/a/b")).isEqualTo(ProgramType.TRACEPOINT);
        assertThat(type("tp/a/b")).isEqualTo(ProgramType.TRACEPOINT);
        assertThat(type("raw_tp/x")).isEqualTo(ProgramType.RAW_TRACEPOINT);
        assertThat(type("raw_tp.w/x")).isEqualTo(ProgramType.RAW_TRACEPOINT_WRITABLE);
        assertThat(type("syscall")).isEqualTo(ProgramType.SYSCALL);
        assertThat(type("fentry/x")).isEqualTo(ProgramType.TRACING);
        assertThat(type("lsm/file_open")).isEqualTo(ProgramType.LSM);
        assertThat(type("cgroup/connect4")).isEqualTo(ProgramType.CGROUP_SOCK_ADDR);
        assertThat(type("?xdp")).isEqualTo(ProgramType.XDP);
        assertThat(SectionDef.find("?kprobe/f").orElseThrow().attachTarget("?kprobe/f")).isEqualTo("f");
        assertThat(SectionDef.find("tc/ingress").map(SectionDef::attachType)).isEqualTo(Optional.of(AttachType.TCX_INGRESS));
    }

    @Test
    void prefixesNeedTheSlashSeparatorAndExactNamesMustBeExact() {
        assertThat(type("kprobex")).isEqualTo(ProgramType.UNSPEC);
        assertThat(type("socket1")).isEqualTo(ProgramType.UNSPEC);
        assertThat(type("xdp/foo")).isEqualTo(ProgramType.UNSPEC);
        assertThat(type("tpx/y")).isEqualTo(ProgramType.UNSPEC);
        assertThat(type(".text")).isEqualTo(ProgramType.UNSPEC);
    }

    @Test
    void kernelNumbers() {
        assertThat(ProgramType.XDP.id).isEqualTo(6);
        assertThat(ProgramType.SYSCALL.id).isEqualTo(31);
        assertThat(MapType.RINGBUF.id()).isEqualTo(27);
        assertThat(MapType.QUEUE.id()).isEqualTo(22);
        assertThat(MapType.of(10)).isEqualTo(MapType.LRU_PERCPU_HASH);
        assertThat(MapType.of(1000)).isNull();
        assertThat(AttachType.TRACE_FENTRY.id).isEqualTo(24);
        for (int i = 0; i < ProgramType.values().length; i++) assertThat(ProgramType.values()[i].id).isEqualTo(i);
        for (int i = 0; i < MapType.values().length; i++) assertThat(MapType.values()[i].id()).isEqualTo(i);
    }

    @Test
    void internalMapNamesAsLibbpf() {
        assertThat(ObjectNames.objectName("dir/my_object_name.bpf.o")).isEqualTo("my_object_name");
        assertThat(ObjectNames.objectName("a_very_long_object_name.o")).isEqualTo("a_very_long_obj");
        assertThat(ObjectNames.internalMapName("my_object_name", ".rodata")).isEqualTo("my_objec.rodata");
        assertThat(ObjectNames.internalMapName("my_object_name", ".bss")).isEqualTo("my_objec.bss");
        assertThat(ObjectNames.internalMapName("globals", ".data")).isEqualTo("globals.data");
        assertThat(ObjectNames.internalMapName("obj", ".rodata.str1.1")).isEqualTo(".rodata.str1.1");
        assertThat(ObjectNames.internalMapName("obj", ".data.a-very-long-name")).isEqualTo(".data.a_very_lo");
        assertThat(ObjectNames.internalMapName("globals", ".kconfig")).isEqualTo("globals.kconfig");
    }
}
