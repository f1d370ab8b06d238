mov %r0, 0
lddw %r1, 0x5
jlt %r1, 5, +1
ja +1
or %r0, 1
lddw %r1, 0x4
jlt %r1, 5, +1
ja +1
or %r0, 2
lddw %r1, 0x6
jlt %r1, 5, +1
ja +1
or %r0, 4
lddw %r1, 0xffffffffffffffff
jlt %r1, -1, +1
ja +1
or %r0, 8
lddw %r1, 0x1
jlt %r1, -1, +1
ja +1
or %r0, 16
lddw %r1, 0xffffffffffffffff
jlt %r1, 1, +1
ja +1
or %r0, 32
lddw %r1, 0x80000000
jlt %r1, -2147483648, +1
ja +1
or %r0, 64
lddw %r1, 0xffffffff80000000
jlt %r1, -2147483648, +1
ja +1
or %r0, 128
lddw %r1, 0x7fffffff
jlt %r1, 2147483647, +1
ja +1
or %r0, 256
lddw %r1, 0x30
jlt %r1, 16, +1
ja +1
or %r0, 512
exit
