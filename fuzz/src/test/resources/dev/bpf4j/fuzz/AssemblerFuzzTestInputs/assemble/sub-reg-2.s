lddw %r0, 0xfffffffffffffff0
lddw %r1, 0x13
sub %r0, %r1
exit
