lddw %r0, 0x1122334455667788
and %r0, 7
exit
