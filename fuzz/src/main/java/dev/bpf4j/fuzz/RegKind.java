package dev.bpf4j.fuzz;

/**
 * What the grammar generator knows a register holds at a point of the program it is writing, in the
 * verifier's terms: nothing readable ({@code NOT_INIT}), a number, or a pointer into the function's
 * own frame ({@code PTR_TO_STACK}), into an outer (caller's) frame, or into the memory block.
 */
enum RegKind { NOT_INIT, SCALAR, PTR_TO_STACK, PTR_TO_OUTER_STACK, PTR_TO_MEM;

    boolean isPointer() { return this == PTR_TO_STACK || this == PTR_TO_OUTER_STACK || this == PTR_TO_MEM; }
}
