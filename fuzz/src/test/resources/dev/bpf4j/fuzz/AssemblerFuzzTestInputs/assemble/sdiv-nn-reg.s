lddw %r0, 0xfffffffffffffff9
mov %r1, -2
sdiv %r0, %r1
exit
