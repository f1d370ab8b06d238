lddw %r2, 0xffff00000f0f00ff
lock or32 [%r1+8], %r2
ldxdw %r0, [%r1+8]
exit
