lddw %r0, 0xdeadbeef12345678
mov %r1, 0
sdiv32 %r0, %r1
exit
