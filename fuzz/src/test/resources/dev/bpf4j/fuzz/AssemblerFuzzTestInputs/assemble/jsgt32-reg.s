mov %r0, 0
lddw %r1, 0x100000001
lddw %r2, 0x200000001
jsgt32 %r1, %r2, +1
ja +1
or %r0, 1
lddw %r1, 0xffffffff00000001
lddw %r2, 0x2
jsgt32 %r1, %r2, +1
ja +1
or %r0, 2
lddw %r1, 0x2
lddw %r2, 0xffffffff00000001
jsgt32 %r1, %r2, +1
ja +1
or %r0, 4
lddw %r1, 0xffffffff
lddw %r2, 0x7fffffff00000001
jsgt32 %r1, %r2, +1
ja +1
or %r0, 8
lddw %r1, 0x1
lddw %r2, 0xffffffff
jsgt32 %r1, %r2, +1
ja +1
or %r0, 16
lddw %r1, 0xffffffff80000000
lddw %r2, 0x7fffffff
jsgt32 %r1, %r2, +1
ja +1
or %r0, 32
lddw %r1, 0x7fffffff
lddw %r2, 0x80000000
jsgt32 %r1, %r2, +1
ja +1
or %r0, 64
lddw %r1, 0x100000000
lddw %r2, 0x80000000
jsgt32 %r1, %r2, +1
ja +1
or %r0, 128
lddw %r1, 0xf0
lddw %r2, 0x100000000f
jsgt32 %r1, %r2, +1
ja +1
or %r0, 256
lddw %r1, 0x1000000f0
lddw %r2, 0x10
jsgt32 %r1, %r2, +1
ja +1
or %r0, 512
exit
