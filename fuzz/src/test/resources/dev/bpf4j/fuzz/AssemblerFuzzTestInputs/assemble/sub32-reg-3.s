lddw %r0, 0x8000000000000000
lddw %r1, 0xffffffffffffffff
sub32 %r0, %r1
exit
