# Sum of 1..100 with a backward conditional jump (conformance-suite assembler syntax).
# ./bpf4j run examples/sum.s        or   ./bpf4j asm examples/sum.s -o /tmp/sum.bin && ./bpf4j run /tmp/sum.bin
mov %r0, 0
mov %r1, 100
loop:
add %r0, %r1
sub %r1, 1
jne %r1, 0, loop
exit
