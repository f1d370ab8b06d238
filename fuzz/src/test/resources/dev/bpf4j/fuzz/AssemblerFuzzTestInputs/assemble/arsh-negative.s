lddw %r0, 0xf000000000000000
arsh %r0, 4
exit
