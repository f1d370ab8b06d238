lddw %r3, 0xf0f0f0f0
stxdw [%r10-8], %r3
stdw [%r10-16], -1
lddw %r2, 0xffff00000f0f00ff
lock fetch or32 [%r10-8], %r2
ldxdw %r0, [%r10-8]
exit
