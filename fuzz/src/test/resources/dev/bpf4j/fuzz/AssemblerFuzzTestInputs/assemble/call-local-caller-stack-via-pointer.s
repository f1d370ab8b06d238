stdw [%r10-8], 0x77
mov %r1, %r10
add %r1, -8
call local f
exit
f:
ldxdw %r0, [%r1+0]
add %r0, 1
stxdw [%r1+0], %r0
exit
