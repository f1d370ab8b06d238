mov %r0, 0
lddw %r1, 0xffffffff0000000a
loop:
add %r0, 1
sub32 %r1, 1
jne32 %r1, 0, loop
exit
