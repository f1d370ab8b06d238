mov %r0, %r1
or %r0, %r2
exit
