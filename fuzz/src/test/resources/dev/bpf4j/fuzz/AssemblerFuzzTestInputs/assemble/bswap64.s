lddw %r0, 0x8877665544332211
bswap64 %r0
exit
