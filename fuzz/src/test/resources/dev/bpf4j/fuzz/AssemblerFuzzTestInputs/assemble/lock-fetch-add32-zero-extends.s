stw [%r10-8], -1
stw [%r10-4], 7
lddw %r1, 0xabcdef0000000001
lock fetch add32 [%r10-8], %r1
mov %r0, %r1
exit
