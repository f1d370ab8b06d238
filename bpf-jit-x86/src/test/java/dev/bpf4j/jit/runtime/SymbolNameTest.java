package dev.bpf4j.jit.runtime;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SymbolNameTest {
    @Test
    void kernelStyleProgramNames() {
        assertThat(JitExecutable.symbolName("xdp_prog")).isEqualTo("xdp_prog");
        // The kernel keeps 15 characters: bpf_prog_<tag>_handle_tracepoi
        assertThat(JitExecutable.symbolName("handle_tracepoint_sys_enter")).isEqualTo("handle_tracepoi");
        assertThat(JitExecutable.symbolName("a b/c-d")).isEqualTo("a_b_c_d");
        assertThat(JitExecutable.symbolName("")).isEqualTo("prog");
    }
}
