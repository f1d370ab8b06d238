lddw %r0, 0xdeadbeef12345678
mov %r1, 0
mod %r0, %r1
exit
