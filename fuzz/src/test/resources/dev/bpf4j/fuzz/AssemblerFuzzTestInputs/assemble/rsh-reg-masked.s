lddw %r0, 0x8000000000000000
mov %r1, 127
rsh %r0, %r1
exit
