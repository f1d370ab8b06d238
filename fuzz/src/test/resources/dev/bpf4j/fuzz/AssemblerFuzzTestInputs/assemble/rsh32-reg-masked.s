lddw %r0, 0xffffffff80000000
mov %r1, 63
rsh32 %r0, %r1
exit
