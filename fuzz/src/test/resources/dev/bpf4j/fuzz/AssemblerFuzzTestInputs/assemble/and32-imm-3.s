lddw %r0, 0x80000000deadbeef
and32 %r0, -2147483648
exit
