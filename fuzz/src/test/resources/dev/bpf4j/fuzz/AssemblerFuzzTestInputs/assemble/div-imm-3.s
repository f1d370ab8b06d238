lddw %r0, 0x80000000deadbeef
div %r0, -2147483648
exit
