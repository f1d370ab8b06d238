stdw [%r10-16], 0
ldxdw %r0, [%r10-12]
exit
