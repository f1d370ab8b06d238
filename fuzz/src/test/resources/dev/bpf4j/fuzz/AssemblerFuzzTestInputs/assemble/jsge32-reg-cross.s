mov %r0, 0
lddw %r1, 0x1
lddw %r2, 0x1
jsge32 %r1, %r2, +1
ja +1
or %r0, 1
lddw %r1, 0x1
lddw %r2, 0x2
jsge32 %r1, %r2, +1
ja +1
or %r0, 2
lddw %r1, 0x2
lddw %r2, 0x1
jsge32 %r1, %r2, +1
ja +1
or %r0, 4
lddw %r1, 0xffffffffffffffff
lddw %r2, 0x1
jsge32 %r1, %r2, +1
ja +1
or %r0, 8
lddw %r1, 0x1
lddw %r2, 0xffffffffffffffff
jsge32 %r1, %r2, +1
ja +1
or %r0, 16
lddw %r1, 0x8000000000000000
lddw %r2, 0x7fffffffffffffff
jsge32 %r1, %r2, +1
ja +1
or %r0, 32
lddw %r1, 0x7fffffffffffffff
lddw %r2, 0x8000000000000000
jsge32 %r1, %r2, +1
ja +1
or %r0, 64
lddw %r1, 0x0
lddw %r2, 0x8000000000000000
jsge32 %r1, %r2, +1
ja +1
or %r0, 128
lddw %r1, 0xf0
lddw %r2, 0xf
jsge32 %r1, %r2, +1
ja +1
or %r0, 256
lddw %r1, 0xf0
lddw %r2, 0x10
jsge32 %r1, %r2, +1
ja +1
or %r0, 512
exit
