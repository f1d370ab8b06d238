stdw [%r10-8], -1
lddw %r3, 0x1122334455667788
stxh [%r10-8], %r3
ldxdw %r0, [%r10-8]
exit
