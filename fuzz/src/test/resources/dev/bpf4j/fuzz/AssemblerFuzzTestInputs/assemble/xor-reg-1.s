lddw %r0, 0x1122334455667788
lddw %r1, 0xf0f0f0f0f0f0f0f
xor %r0, %r1
exit
