lddw %r0, 0x80000000deadbeef
arsh32 %r0, 0
exit
