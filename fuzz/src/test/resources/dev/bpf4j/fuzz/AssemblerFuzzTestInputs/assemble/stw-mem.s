stw [%r1+4], -2
ldxdw %r0, [%r1+0]
exit
