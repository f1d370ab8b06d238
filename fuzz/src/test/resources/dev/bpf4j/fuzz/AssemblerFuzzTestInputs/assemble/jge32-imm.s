mov %r0, 0
lddw %r1, 0x500000005
jge32 %r1, 5, +1
ja +1
or %r0, 1
lddw %r1, 0xffffffff00000004
jge32 %r1, 5, +1
ja +1
or %r0, 2
lddw %r1, 0x6
jge32 %r1, 5, +1
ja +1
or %r0, 4
lddw %r1, 0xffffffff
jge32 %r1, -1, +1
ja +1
or %r0, 8
lddw %r1, 0xffffffff00000001
jge32 %r1, -1, +1
ja +1
or %r0, 16
lddw %r1, 0x180000000
jge32 %r1, -2147483648, +1
ja +1
or %r0, 32
lddw %r1, 0x7fffffff
jge32 %r1, -2147483648, +1
ja +1
or %r0, 64
lddw %r1, 0x12345678ffffffff
jge32 %r1, 1, +1
ja +1
or %r0, 128
lddw %r1, 0x100000000
jge32 %r1, 0, +1
ja +1
or %r0, 256
lddw %r1, 0x30
jge32 %r1, 16, +1
ja +1
or %r0, 512
exit
