package dev.bpf4j.kernel;

import java.util.HexFormat;

/**
 * What BPF_OBJ_GET_INFO_BY_FD tells about a loaded program: its type, id, the 8-byte tag (the first
 * 8 bytes of SHA-1 over the instructions with map fds zeroed, {@code bpf_prog_calc_tag}), the
 * sizes of its JITed and translated code, and its name.
 */
public record ProgInfo(int type, int id, byte[] tag, int jitedProgLen, int xlatedProgLen, String name) {
    /** The tag as {@code bpftool prog show} prints it: 16 lower-case hex digits. */
    public String tagHex() { return HexFormat.of().formatHex(tag); }
}
