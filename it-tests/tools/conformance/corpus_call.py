"""bpf-to-bpf calls, helper 5 (unwind) and error cases."""
from corpus import case, h, M64
import bpfasm

# ---- call local
case('call', 'call-local-args', ['mov %r1, 1', 'mov %r2, 2', 'mov %r3, 3', 'mov %r4, 4', 'mov %r5, 5', 'call local f', 'exit',
                                 'f:', 'mov %r0, %r1', 'add %r0, %r2', 'add %r0, %r3', 'add %r0, %r4', 'add %r0, %r5', 'exit'],
     'r1-r5 are passed to the callee; r0 is its result', expect=15)
case('call', 'call-local-preserves-r6-r9', ['mov %r6, 6', 'mov %r7, 7', 'mov %r8, 8', 'mov %r9, 9', 'call local f',
                                            'mov %r0, %r6', 'lsh %r0, 8', 'or %r0, %r7', 'lsh %r0, 8', 'or %r0, %r8', 'lsh %r0, 8', 'or %r0, %r9', 'exit',
                                            'f:', 'mov %r6, 0', 'mov %r7, 0', 'mov %r8, 0', 'mov %r9, 0', 'mov %r0, 0', 'exit'],
     'r6-r9 are the same after the call even though the callee overwrote them', expect=0x06070809)
case('call', 'call-local-fresh-stack', ['stdw [%r10-8], 0x1234', 'call local f', 'ldxdw %r1, [%r10-8]', 'add %r0, %r1', 'exit',
                                        'f:', 'stdw [%r10-8], 0x55', 'ldxdw %r0, [%r10-8]', 'exit'],
     "the callee's [r10-8] is its own slot: the caller's value survives", expect=0x1234 + 0x55)
case('call', 'call-local-caller-stack-via-pointer', ['stdw [%r10-8], 0x77', 'mov %r1, %r10', 'add %r1, -8', 'call local f', 'exit',
                                                     'f:', 'ldxdw %r0, [%r1+0]', 'add %r0, 1', 'stxdw [%r1+0], %r0', 'exit'],
     "a callee may use a pointer into its caller's (live) frame", expect=0x78)
case('call', 'call-local-recursion-factorial', ['mov %r1, 5', 'call local fact', 'exit',
                                                'fact:', 'mov %r0, 1', 'jeq %r1, 0, done', 'mov %r6, %r1', 'sub %r1, 1',
                                                'call local fact', 'mul %r0, %r6', 'done:', 'exit'],
     'recursive 5! (7 frames deep)', expect=120)
case('call', 'call-local-depth-8-ok', ['mov %r1, 7', 'call local f', 'exit',
                                       'f:', 'mov %r0, 0', 'jeq %r1, 1, done', 'sub %r1, 1', 'call local f', 'add %r0, 1', 'done:', 'exit'],
     'exactly 8 frames (main + 7 nested calls) are allowed', expect=6)
case('call', 'call-local-two-functions', ['mov %r1, 3', 'call local double', 'mov %r1, %r0', 'call local inc', 'exit',
                                          'double:', 'mov %r0, %r1', 'add %r0, %r1', 'exit',
                                          'inc:', 'mov %r0, %r1', 'add %r0, 1', 'exit'],
     'two subprograms, one after the other: (3*2)+1', expect=7)
case('call', 'call-local-nested', ['mov %r1, 10', 'call local a', 'exit',
                                   'a:', 'mov %r6, %r1', 'add %r1, 1', 'call local b', 'add %r0, %r6', 'exit',
                                   'b:', 'mov %r0, %r1', 'mul %r0, 2', 'exit'],
     'a calls b: 10 + (11*2)', expect=32)
case('call', 'call-local-loop-of-calls', ['mov %r6, 0', 'mov %r7, 0', 'loop:', 'mov %r1, %r7', 'call local sq', 'add %r6, %r0',
                                          'add %r7, 1', 'jlt %r7, 10, loop', 'mov %r0, %r6', 'exit',
                                          'sq:', 'mov %r0, %r1', 'mul %r0, %r1', 'exit'],
     'sum of squares 0..9 through 10 calls', expect=285)
case('call', 'call-local-many-calls', ['mov %r6, 0', 'lddw %r7, 20000', 'loop:', 'call local one', 'add %r6, %r0', 'sub %r7, 1',
                                       'jne %r7, 0, loop', 'mov %r0, %r6', 'exit', 'one:', 'mov %r0, 1', 'exit'],
     '20000 calls and back-edges stay within the budget', expect=20000)

# ---- helper 5: unwind
case('call', 'unwind-nonzero-returns-arg', ['mov %r1, 42', 'call 5', 'add %r0, 1', 'exit'],
     'helper 5 returns its argument and the program continues', expect=43)
case('call', 'unwind-zero-exits', ['mov %r1, 0', 'call 5', 'mov %r0, 7', 'exit'],
     'helper 5 with argument 0 ends the program at once with r0 = 0', expect=0)
case('call', 'unwind-zero-in-subprogram', ['mov %r6, 5', 'call local f', 'mov %r0, 9', 'exit',
                                           'f:', 'mov %r1, 0', 'call 5', 'mov %r0, 3', 'exit'],
     'unwind with 0 inside a subprogram ends the whole program', expect=0)
case('call', 'unwind-loop', ['mov %r6, 3', 'loop:', 'mov %r1, %r6', 'call 5', 'sub %r6, 1', 'ja loop'],
     'unwind ends a loop when its argument reaches 0', expect=0)

# ---- errors: out of bounds at run time
OOB = 'out of bounds'
REJ = 'rejected'  # refused at load time by the verifier
MEM8 = bytes(range(8))
case('errors', 'oob-read-past-end', ['ldxdw %r0, [%r1+4]', 'exit'], 'an 8-byte read that crosses the end of the block', mem=MEM8, error=OOB)
case('errors', 'oob-read-before-start', ['ldxb %r0, [%r1-1]', 'exit'], 'a read one byte before the block: the verifier refuses it', mem=MEM8, error=REJ)
case('errors', 'oob-write-past-end', ['stw [%r1+8], 1', 'mov %r0, 0', 'exit'], 'a write just after the block', mem=MEM8, error=OOB)
# Addresses are real: a pointer a few KiB past the block may land in the run's own stack, which
# is legal. 2^62 past it is outside every user-space mapping.
case('errors', 'oob-stx-far', ['mov %r0, 0', 'mov %r3, %r1', 'lddw %r4, 0x4000000000000000', 'add %r3, %r4', 'stxb [%r3+0], %r0', 'exit'],
     'a write 2^62 bytes past the block', mem=MEM8, error=OOB)
case('errors', 'oob-null-read', ['ldxb %r0, [%r1+0]', 'exit'], 'r1 is 0 without -- mem: reading it fails', error=OOB)
case('errors', 'oob-null-write', ['mov %r0, 0', 'stdw [%r1+0], 1', 'exit'], 'writing through a null pointer fails', error=OOB)
case('errors', 'oob-stack-below-frame', ['mov %r3, %r10', 'add %r3, -520', 'ldxdw %r0, [%r3+0]', 'exit'],
     'below the 512-byte frame through a pointer: the verifier refuses it (invalid stack off=-520)', error=REJ)
case('errors', 'oob-stack-at-r10', ['mov %r3, %r10', 'ldxb %r0, [%r3+0]', 'exit'], '[r10] itself is above the frame: the verifier refuses it', error=REJ)
case('errors', 'oob-dead-frame', ['call local f', 'ldxdw %r0, [%r0+0]', 'exit', 'f:', 'stdw [%r10-8], 1', 'mov %r0, %r10', 'add %r0, -8', 'exit'],
     "returning a pointer into the callee's frame, which dies: the verifier refuses it", error=REJ)
case('errors', 'oob-atomic-past-end', ['mov %r2, 1', 'lock add [%r1+4], %r2', 'mov %r0, 0', 'exit'], 'an atomic add crossing the end', mem=MEM8, error=OOB)
MIS = 'misaligned atomic'
MEM16 = bytes(range(16))
case('errors', 'misaligned-atomic-add-mem', ['mov %r2, 1', 'lock add [%r1+4], %r2', 'mov %r0, 0', 'exit'],
     'an 8-byte atomic add at a 4-byte aligned address', mem=MEM16, error=MIS)
case('errors', 'misaligned-atomic-add32-mem', ['mov %r2, 1', 'lock add32 [%r1+2], %r2', 'mov %r0, 0', 'exit'],
     'a 4-byte atomic add at a 2-byte aligned address', mem=MEM16, error=MIS)
case('errors', 'misaligned-atomic-xchg-mem', ['mov %r2, 1', 'lock xchg [%r1+1], %r2', 'mov %r0, 0', 'exit'],
     'an 8-byte xchg at an odd address', mem=MEM16, error=MIS)
case('errors', 'misaligned-atomic-cmpxchg-stack', ['mov %r0, 0', 'mov %r2, 1', 'mov %r3, %r10', 'add %r3, -12',
                                                   'lock cmpxchg [%r3+0], %r2', 'exit'],
     'an 8-byte cmpxchg on the stack through a pointer, 4-byte aligned: the verifier refuses it', error=REJ)
case('errors', 'misaligned-atomic-fetch-or32-stack', ['mov %r2, 1', 'mov %r3, %r10', 'add %r3, -7',
                                                      'lock fetch or32 [%r3+0], %r2', 'mov %r0, 0', 'exit'],
     'a 4-byte fetch-or on the stack at an odd address: the verifier refuses it', error=REJ)
case('errors', 'misaligned-atomic-out-of-bounds-first', ['mov %r2, 1', 'lock add [%r1+12], %r2', 'mov %r0, 0', 'exit'],
     'misaligned and crossing the end of the block: the bounds check comes first', mem=MEM16, error=OOB)
case('atomic', 'aligned-atomic-add32-at-4', ['mov %r2, 1', 'lock add32 [%r1+4], %r2', 'ldxw %r0, [%r1+4]', 'exit'],
     'a 4-byte atomic at a 4-byte aligned address is fine', mem=MEM16, expect=0x07060505)
case('errors', 'oob-address-wraps', ['lddw %r3, 0xffffffffffffffff', 'ldxh %r0, [%r3+0]', 'exit'], 'an access whose end wraps around 2^64', error=OOB)

# ---- errors: termination
case('errors', 'runaway-loop', ['mov %r0, 0', 'loop:', 'add %r0, 1', 'jne %r0, 0, loop', 'exit'],
     'a loop that would run 2^64 times is stopped by the budget', error='budget exceeded')
case('errors', 'runaway-ja', ['mov %r0, 1', 'mov %r1, 1', 'jeq %r1, 0, +1', 'ja -2', 'exit'],
     'an unconditional backward jump forever', error='budget exceeded')
case('errors', 'call-depth-exceeded', ['mov %r1, 0', 'call local f', 'exit', 'f:', 'add %r1, 1', 'call local f', 'exit'],
     'unbounded recursion: the 9th frame is refused', error='call depth exceeded')
case('errors', 'call-depth-exceeded-by-one', ['mov %r1, 8', 'call local f', 'exit',
                                              'f:', 'mov %r0, 0', 'jeq %r1, 1, done', 'sub %r1, 1', 'call local f', 'add %r0, 1', 'done:', 'exit'],
     'main + 8 nested calls = 9 frames: one too many', error='call depth exceeded')

# ---- errors: rejected at load time (validator)
case('errors', 'write-r10-mov', ['mov %r10, 1', 'mov %r0, 0', 'exit'], 'r10 is read-only', error=REJ)
case('errors', 'write-r10-add', ['add %r10, -8', 'mov %r0, 0', 'exit'], 'r10 is read-only, even for add', error=REJ)
case('errors', 'write-r10-ldx', ['ldxdw %r10, [%r1+0]', 'mov %r0, 0', 'exit'], 'a load into r10 is refused', mem=MEM8, error=REJ)
case('errors', 'jump-out-of-range-forward', ['mov %r0, 0', 'ja +5', 'exit'], 'a jump past the end of the program', error=REJ)
case('errors', 'jump-out-of-range-backward', ['mov %r0, 0', 'ja -3', 'exit'], 'a jump before the start of the program', error=REJ)
case('errors', 'jump-into-lddw', ['mov %r0, 0', 'ja +1', 'lddw %r0, 1', 'exit'], 'a jump into the second slot of an lddw', error=REJ)
case('errors', 'no-exit', ['mov %r0, 0', 'add %r0, 1'], 'the program falls off its end', error=REJ)
case('errors', 'read-uninitialised-register', ['mov %r0, %r3', 'exit'], 'r3 is not initialised at entry', error=REJ)
case('errors', 'read-r0-uninitialised', ['exit'], 'exit reads r0, which was never written', error=REJ)
case('errors', 'stack-unaligned', ['stdw [%r10-16], 0', 'ldxdw %r0, [%r10-12]', 'exit'], 'an r10-relative access inside the frame but not 8-byte aligned', error=REJ)
case('errors', 'stack-static-out-of-frame', ['ldxdw %r0, [%r10-520]', 'exit'], 'an r10-relative access below the frame', error=REJ)
case('errors', 'stack-static-above-frame', ['stdw [%r10+0], 0', 'mov %r0, 0', 'exit'], 'an r10-relative access at r10', error=REJ)
case('errors', 'call-local-out-of-range', ['mov %r0, 0', 'call local +10', 'exit'], 'a local call whose target is outside the program', error=REJ)
case('errors', 'unknown-helper', ['mov %r1, 1', 'call 99', 'exit'], 'helper 99 is not registered', error='unknown helper 99')


def raw_case(name, doc, slots):
    case('errors', name, None, doc, raw=[bpfasm.encode_raw(s) for s in slots], error=REJ)


EXIT = (0x95, 0, 0, 0, 0)
MOV0 = (0xb7, 0, 0, 0, 0)
raw_case('invalid-opcode-alu64-0xe7', 'opcode 0xe7 (ALU64 op 0xe0) does not exist', [MOV0, (0xe7, 0, 0, 0, 0), EXIT])
raw_case('invalid-opcode-jmp32-0xf6', 'opcode 0xf6 (JMP32 op 0xf0) does not exist', [MOV0, (0xf6, 0, 0, 0, 0), EXIT])
raw_case('invalid-opcode-zero', 'opcode 0x00 (LD W IMM) is not an instruction', [MOV0, (0x00, 0, 0, 0, 0), EXIT])
raw_case('invalid-opcode-ldabs', 'legacy packet loads (LD ABS 0x20) are not supported outside socket filters', [MOV0, (0x20, 0, 0, 0, 0), EXIT])
raw_case('invalid-register-11', 'register r11 does not exist', [(0xb7, 11, 0, 0, 1), MOV0, EXIT])
raw_case('lddw-truncated', 'an lddw in the last slot has no second half', [MOV0, (0x18, 0, 0, 0, 1)])
raw_case('lddw-bad-second-slot', 'the second slot of an lddw must have opcode 0', [(0x18, 0, 0, 0, 1), (0xb7, 0, 0, 0, 0), EXIT])
raw_case('invalid-end-size', 'be with imm 8 is not a byte-swap width', [MOV0, (0xdc, 0, 0, 0, 8), EXIT])
raw_case('invalid-movsx-offset', 'movsx with offset 4 is not a width', [MOV0, (0xbf, 0, 0, 4, 0), EXIT])
raw_case('invalid-sdiv-offset', 'div with offset 2 is neither div nor sdiv', [MOV0, (0x3f, 0, 0, 2, 0), EXIT])
raw_case('invalid-neg-x', 'neg has no register-source form (0x8f)', [MOV0, (0x8f, 0, 0, 0, 0), EXIT])
raw_case('invalid-bswap-to-be', 'ALU64 END with the TO_BE bit (0xdf) is not an instruction', [MOV0, (0xdf, 0, 0, 0, 16), EXIT])
raw_case('invalid-movsx32-offset-32', 'a 32-bit movsx from 32 bits (0xbc, off 32) is not an instruction', [MOV0, (0xbc, 0, 1, 32, 0), EXIT])
raw_case('invalid-lddw-src', 'lddw with src 1 (map fd) needs a map, which a raw program has not got', [(0x18, 0, 1, 0, 1), (0, 0, 0, 0, 0), EXIT])

# The default budget is 1,000,000 back-edges plus calls: exactly that many pass, one more fails.
case('jmp', 'budget-exactly-default', ['mov %r0, 0', 'lddw %r1, 1000001', 'loop:', 'add %r0, 1', 'sub %r1, 1', 'jne %r1, 0, loop', 'exit'],
     'exactly 1,000,000 taken back-edges: the whole default budget', expect=1000001)
case('errors', 'budget-one-over-default', ['mov %r0, 0', 'lddw %r1, 1000002', 'loop:', 'add %r0, 1', 'sub %r1, 1', 'jne %r1, 0, loop', 'exit'],
     '1,000,001 taken back-edges: one more than the default budget', error='budget exceeded')
case('call', 'budget-calls-count', ['mov %r6, 0', 'lddw %r7, 500000', 'loop:', 'call local f', 'add %r6, %r0', 'sub %r7, 1',
                                    'jne %r7, 0, loop', 'mov %r0, %r6', 'exit', 'f:', 'mov %r0, 1', 'exit'],
     '500,000 calls + 499,999 back-edges = 999,999 events: within the budget', expect=500000)
case('errors', 'budget-calls-count-over', ['mov %r6, 0', 'lddw %r7, 500001', 'loop:', 'call local f', 'add %r6, %r0', 'sub %r7, 1',
                                           'jne %r7, 0, loop', 'mov %r0, %r6', 'exit', 'f:', 'mov %r0, 1', 'exit'],
     '500,001 calls + 500,000 back-edges = 1,000,001 events: calls count towards the budget', error='budget exceeded')

# ---- callx (opcode 0x8d, bpf_conformance's `call %rN`): the helper whose id is in the register
case('call', 'callx-unwind', ['mov %r1, -1', 'mov %r2, 5', 'call %r2', 'mov %r0, 2', 'exit'],
     'callx calls helper 5 (unwind), whose id is in r2; its non-zero argument lets the program go on', expect=2)
case('call', 'callx-unwind-zero-exits', ['mov %r1, 0', 'mov %r2, 5', 'call %r2', 'mov %r0, 2', 'exit'],
     'callx of unwind with argument 0 ends the program with r0 = 0', expect=0)
case('call', 'callx-id-in-r1', ['mov %r1, 5', 'call %r1', 'exit'],
     'the id register may be an argument register: helper 5 receives r1 = 5 and returns it', expect=5)
case('call', 'callx-id-in-callee-saved', ['mov %r6, 5', 'mov %r1, 9', 'call %r6', 'add %r0, %r6', 'exit'],
     'an id in r6 survives the call: 9 + 5', expect=14)
case('call', 'callx-in-subprogram', ['mov %r1, 4', 'call local f', 'add %r0, 1', 'exit',
                                     'f:', 'mov %r3, 5', 'add %r1, 3', 'call %r3', 'exit'],
     'callx inside a subprogram: unwind(4 + 3) + 1', expect=8)
case('call', 'callx-loop', ['mov %r6, 3', 'mov %r7, 5', 'loop:', 'mov %r1, %r6', 'call %r7', 'sub %r6, 1', 'ja loop'],
     'callx of unwind ends a loop when its argument reaches 0', expect=0)
case('errors', 'callx-unknown-helper', ['mov %r1, 1', 'mov %r2, 99', 'call %r2', 'exit'],
     'callx of id 99, which is not a helper, fails when it runs', error='helper failed')
case('errors', 'callx-id-above-32-bits', ['mov %r1, 1', 'lddw %r2, 0x100000005', 'call %r2', 'exit'],
     'callx of 2^32 + 5: ids are compared in 64 bits, so this is not helper 5', error='helper failed')
case('errors', 'callx-uninitialised-register', ['mov %r1, 1', 'call %r3', 'exit'],
     'callx reads its register, which must be initialised', error=REJ)

# ---- files with both -- asm and -- raw (as in the public suites): raw is the program, asm its listing
LISTED_CALLX = ['mov %r1, -1', 'mov %r2, 5', 'call %r2', 'mov %r0, 2', 'exit']
case('call', 'callx-raw-with-listing', LISTED_CALLX, 'the callx program as raw words under its assembly listing',
     raw=[bpfasm.encode_raw(s) for s in bpfasm.assemble('\n'.join(LISTED_CALLX))], expect=2)
case('call', 'raw-wins-over-listing', ['mov %r0, 1', 'exit'],
     'a listing that does not match the raw words: the raw program (r0 = 7) is what runs',
     raw=[bpfasm.encode_raw(s) for s in [(0xb7, 0, 0, 0, 7), (0x95, 0, 0, 0, 0)]], expect=7)
