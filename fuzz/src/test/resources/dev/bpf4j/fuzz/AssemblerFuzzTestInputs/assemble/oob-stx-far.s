mov %r0, 0
mov %r3, %r1
lddw %r4, 0x4000000000000000
add %r3, %r4
stxb [%r3+0], %r0
exit
