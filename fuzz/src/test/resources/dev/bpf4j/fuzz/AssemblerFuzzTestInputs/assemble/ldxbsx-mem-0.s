ldxbsx %r0, [%r1+0]
exit
