lddw %r0, 0xfffffffffffffff9
mov %r1, -2
smod %r0, %r1
exit
