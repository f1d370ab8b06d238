mov %r0, 0
lddw %r1, 0xffffffff00000007
jeq32 %r1, 7, +1
exit
mov %r0, 1
exit
