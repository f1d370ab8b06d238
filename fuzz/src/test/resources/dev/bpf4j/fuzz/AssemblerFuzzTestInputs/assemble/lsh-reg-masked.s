mov %r0, 1
mov %r1, 65
lsh %r0, %r1
exit
