lddw %r0, 0x1122334455667788
add %r0, 7
exit
