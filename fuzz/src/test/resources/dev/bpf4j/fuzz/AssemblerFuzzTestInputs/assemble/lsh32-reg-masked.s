mov %r0, 1
mov %r1, 33
lsh32 %r0, %r1
exit
