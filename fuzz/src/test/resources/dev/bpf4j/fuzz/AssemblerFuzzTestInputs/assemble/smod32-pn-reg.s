lddw %r0, 0xabcdef0000000007
mov %r1, -2
smod32 %r0, %r1
exit
