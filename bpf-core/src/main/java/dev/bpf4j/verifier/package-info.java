/**
 * The load-time gate: {@link dev.bpf4j.verifier.Validator#analyze} checks a raw program and
 * returns its subprogram boundaries ({@link dev.bpf4j.verifier.ValidatedProgram}), or throws a
 * {@link dev.bpf4j.verifier.VerifierException} with a kernel-like "pc: reason".
 *
 * <p>What it checks, pass by pass:
 * <ul>
 *   <li>{@code SlotChecker} (with {@code AluRules}, {@code JumpRules}, {@code MemoryRules}): every
 *       RFC 9669 v1-v4 opcode is known, unused fields are 0, offsets and widths have their defined
 *       values (sdiv/smod off 1; movsx off 8/16 on ALU, 8/16/32 on ALU64; le/be/bswap imm
 *       16/32/64), registers are r0-r10, nothing writes r10, lddw has a well-formed second slot,
 *       helper ids are registered (callx's id is in a register: the engines check it when it runs).
 *       Legacy LD ABS/IND, kfunc calls, may_goto and unresolved
 *       pseudo lddw are "not supported" ({@link dev.bpf4j.verifier.ValidatorFeatures} can allow
 *       LD ABS/IND and pseudo lddw).</li>
 *   <li>{@code ControlFlow}: subprograms start at pc 0 and at every call-local target; jumps and
 *       calls land inside the program and not on an lddw's second slot; jumps stay in their
 *       subprogram; each subprogram ends with exit or ja.</li>
 *   <li>{@code Verifier}: the kernel-style verifier. Every path runs through an abstract machine
 *       ({@code VerifierState}: frames of typed registers {@code RegState} and typed stack bytes),
 *       one instruction at a time ({@code Step}, {@code ScalarAlu}, {@code BranchRules},
 *       {@code MemoryAccess}, {@code HelperArgs} against {@code HelperProto}), with states pruned
 *       where an earlier one covers them ({@code StatePruning}). docs/verifier.md has the rules
 *       and where bpf4j differs from Linux.</li>
 * </ul>
 */
package dev.bpf4j.verifier;
