package dev.bpf4j.verifier;

/**
 * What a register or a spilled stack slot holds, in the kernel's vocabulary ({@code enum bpf_reg_type}).
 * Names print as the kernel's verifier log prints them ({@code reg_type_str}).
 */
enum RegType {
    /** Never written, or clobbered by a call: reading it is {@code R%d !read_ok}. */
    NOT_INIT("?"),
    SCALAR("scalar"),
    /** r1 at entry. With a known context layout, only fixed offsets; otherwise a run-time checked block. */
    PTR_TO_CTX("ctx"),
    /** A frame's stack: {@code r10 + off} of frame {@code frameno}. */
    PTR_TO_STACK("fp"),
    CONST_PTR_TO_MAP("map_ptr"),
    PTR_TO_MAP_VALUE("map_value"),
    PTR_TO_MAP_VALUE_OR_NULL("map_value_or_null"),
    PTR_TO_PACKET("pkt"),
    PTR_TO_PACKET_END("pkt_end"),
    /** The metadata area in front of the packet (XDP, TC). */
    PTR_TO_PACKET_META("pkt_meta"),
    /** Memory a helper returned (ring-buffer reservations): accesses are checked at run time. */
    PTR_TO_MEM("ringbuf_mem"), // Linux: PTR_TO_MEM | MEM_RINGBUF (a reservation; also the key bpf4j hands a for_each callback)
    PTR_TO_MEM_OR_NULL("ringbuf_mem_or_null"),
    /** {@code lddw src=4}: a callback's address. */
    PTR_TO_FUNC("func"),
    /**
     * A kernel object of a BTF struct ({@code PTR_TO_BTF_ID}): the task bpf_get_current_task_btf returns, the
     * vma bpf_find_vma hands its callback; which one is {@code RegState.target} ({@link BtfObject}).
     */
    PTR_TO_BTF_ID("ptr_");

    final String logName;

    RegType(String logName) { this.logName = logName; }

    boolean isPointer() { return this != NOT_INIT && this != SCALAR; }

    boolean maybeNull() { return this == PTR_TO_MAP_VALUE_OR_NULL || this == PTR_TO_MEM_OR_NULL; }

    /** The type a null check's non-null branch gives. */
    RegType nonNull() {
        switch (this) {
            case PTR_TO_MAP_VALUE_OR_NULL: return PTR_TO_MAP_VALUE;
            case PTR_TO_MEM_OR_NULL: return PTR_TO_MEM;
            default: return this;
        }
    }

    /** Pointers through which a program may load and store (others: {@code invalid mem access}). */
    boolean isMemory() {
        return this == PTR_TO_CTX || this == PTR_TO_STACK || this == PTR_TO_MAP_VALUE || this == PTR_TO_PACKET
                || this == PTR_TO_PACKET_META || this == PTR_TO_MEM;
    }
}
