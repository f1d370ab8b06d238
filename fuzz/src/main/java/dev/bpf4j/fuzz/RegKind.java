package dev.bpf4j.fuzz;

/**
 * What the grammar generator knows a register holds at a point of the program it is writing, in the
 * verifier's terms: nothing readable ({@code NOT_INIT}), a number, or a pointer into the function's
 * own frame ({@code PTR_TO_STACK}), into an outer (caller's) frame, into the memory block, into a map
 * value, into the packet (checked against data_end), or the {@code __sk_buff} context.
 */
enum RegKind { NOT_INIT, SCALAR, PTR_TO_STACK, PTR_TO_OUTER_STACK, PTR_TO_MEM, PTR_TO_MAP_VALUE, PTR_TO_PACKET, PTR_TO_CTX;

    /** A pointer the grammar's loads, stores and pointer arithmetic may use (the context only through its own statements). */
    boolean isPointer() { return this != NOT_INIT && this != SCALAR && this != PTR_TO_CTX; }

    boolean isStack() { return this == PTR_TO_STACK || this == PTR_TO_OUTER_STACK; }
}
