mov %r0, 0
lddw %r1, 0x0000000080000000
jslt %r1, 0, +1
exit
mov %r0, 1
exit
