package dev.bpf4j.kernel;

/**
 * Byte offsets inside {@code union bpf_attr} (include/uapi/linux/bpf.h) for the commands bpf4j uses,
 * and inside {@code struct bpf_prog_info}. Checked against the uapi header with {@code offsetof}
 * (gcc, linux-libc-dev 6.1; the layout is ABI and only grows at the end). Pointers are
 * {@code __aligned_u64}; everything is little-endian on x86-64. Fields not written stay zero, which
 * the kernel requires of every byte past the last field a command knows.
 */
final class BpfAttr {
    private BpfAttr() {}

    /** Bytes we pass as {@code size}: sizeof(union bpf_attr) in 6.1 headers. The kernel accepts any size whose unknown tail is zero. */
    static final int SIZE = 144;

    /** enum bpf_cmd. */
    static final int BPF_MAP_CREATE = 0, BPF_MAP_LOOKUP_ELEM = 1, BPF_MAP_UPDATE_ELEM = 2,
            BPF_MAP_DELETE_ELEM = 3, BPF_MAP_GET_NEXT_KEY = 4, BPF_PROG_LOAD = 5,
            BPF_PROG_TEST_RUN = 10, BPF_OBJ_GET_INFO_BY_FD = 15, BPF_BTF_LOAD = 18,
            BPF_MAP_LOOKUP_AND_DELETE_ELEM = 21, BPF_MAP_FREEZE = 22;

    /** BPF_MAP_CREATE: struct { map_type; key_size; value_size; max_entries; map_flags; inner_map_fd; numa_node; map_name[16]; ... }. */
    static final class MapCreate {
        private MapCreate() {}
        static final int MAP_TYPE = 0;        // __u32
        static final int KEY_SIZE = 4;        // __u32
        static final int VALUE_SIZE = 8;      // __u32
        static final int MAX_ENTRIES = 12;    // __u32
        static final int MAP_FLAGS = 16;      // __u32
        static final int INNER_MAP_FD = 20;   // __u32
        static final int NUMA_NODE = 24;      // __u32
        static final int MAP_NAME = 28;       // char[BPF_OBJ_NAME_LEN = 16]
        static final int BTF_FD = 48;         // __u32
        static final int BTF_KEY_TYPE_ID = 52;   // __u32
        static final int BTF_VALUE_TYPE_ID = 56; // __u32
    }

    /** BPF_BTF_LOAD: struct { btf; btf_log_buf; btf_size; btf_log_size; btf_log_level; }. */
    static final class BtfLoad {
        private BtfLoad() {}
        static final int BTF = 0;             // __aligned_u64 (pointer)
        static final int LOG_BUF = 8;         // __aligned_u64 (pointer)
        static final int BTF_SIZE = 16;       // __u32
        static final int LOG_SIZE = 20;       // __u32
        static final int LOG_LEVEL = 24;      // __u32
    }

    /** BPF_MAP_*_ELEM and BPF_MAP_GET_NEXT_KEY: struct { map_fd; pad; key; value | next_key; flags; }. */
    static final class MapElem {
        private MapElem() {}
        static final int MAP_FD = 0;          // __u32
        static final int KEY = 8;             // __aligned_u64 (pointer)
        static final int VALUE = 16;          // __aligned_u64 (pointer)
        static final int NEXT_KEY = 16;       // __aligned_u64, same slot as VALUE
        static final int FLAGS = 24;          // __u64: BPF_ANY / BPF_NOEXIST / BPF_EXIST
    }

    /** BPF_PROG_LOAD. */
    static final class ProgLoad {
        private ProgLoad() {}
        static final int PROG_TYPE = 0;       // __u32
        static final int INSN_CNT = 4;        // __u32, in 8-byte slots
        static final int INSNS = 8;           // __aligned_u64 (pointer to struct bpf_insn[])
        static final int LICENSE = 16;        // __aligned_u64 (pointer to a C string)
        static final int LOG_LEVEL = 24;      // __u32
        static final int LOG_SIZE = 28;       // __u32
        static final int LOG_BUF = 32;        // __aligned_u64 (pointer)
        static final int KERN_VERSION = 40;   // __u32
        static final int PROG_FLAGS = 44;     // __u32
        static final int PROG_NAME = 48;      // char[16]
        static final int PROG_IFINDEX = 64;   // __u32
        static final int EXPECTED_ATTACH_TYPE = 68; // __u32
        static final int PROG_BTF_FD = 72;    // __u32
        static final int FUNC_INFO_REC_SIZE = 76; // __u32 (sizeof struct bpf_func_info = 8)
        static final int FUNC_INFO = 80;      // __aligned_u64 (pointer)
        static final int FUNC_INFO_CNT = 88;  // __u32
        static final int LINE_INFO_REC_SIZE = 92; // __u32 (sizeof struct bpf_line_info = 16)
        static final int LINE_INFO = 96;      // __aligned_u64 (pointer)
        static final int LINE_INFO_CNT = 104; // __u32
    }

    /** BPF_PROG_TEST_RUN: struct { ... } test. */
    static final class TestRun {
        private TestRun() {}
        static final int PROG_FD = 0;         // __u32
        static final int RETVAL = 4;          // __u32, out
        static final int DATA_SIZE_IN = 8;    // __u32
        static final int DATA_SIZE_OUT = 12;  // __u32, in: buffer size, out: bytes written
        static final int DATA_IN = 16;        // __aligned_u64
        static final int DATA_OUT = 24;       // __aligned_u64
        static final int REPEAT = 32;         // __u32
        static final int DURATION = 36;       // __u32, out: ns per run
        static final int CTX_SIZE_IN = 40;    // __u32
        static final int CTX_SIZE_OUT = 44;   // __u32
        static final int CTX_IN = 48;         // __aligned_u64
        static final int CTX_OUT = 56;        // __aligned_u64
        static final int FLAGS = 64;          // __u32
        static final int CPU = 68;            // __u32
        static final int BATCH_SIZE = 72;     // __u32
    }

    /** BPF_OBJ_GET_INFO_BY_FD: struct { bpf_fd; info_len; info; } info. */
    static final class InfoByFd {
        private InfoByFd() {}
        static final int BPF_FD = 0;          // __u32
        static final int INFO_LEN = 4;        // __u32, in: buffer size, out: bytes the kernel filled
        static final int INFO = 8;            // __aligned_u64 (pointer to struct bpf_prog_info)
    }

    /** struct bpf_map_info (we ask for the first 8 bytes). */
    static final class MapInfoLayout {
        private MapInfoLayout() {}
        static final int SIZE = 8;
        static final int TYPE = 0;            // __u32
        static final int ID = 4;              // __u32
    }

    /** struct bpf_prog_info (sizeof 232 in 6.1 headers; we ask for the first 80 bytes). */
    static final class ProgInfoLayout {
        private ProgInfoLayout() {}
        static final int SIZE = 80;
        static final int TYPE = 0;            // __u32
        static final int ID = 4;              // __u32
        static final int TAG = 8;             // __u8[BPF_TAG_SIZE = 8]
        static final int JITED_PROG_LEN = 16; // __u32
        static final int XLATED_PROG_LEN = 20; // __u32
        static final int NAME = 64;           // char[16]
    }
}
