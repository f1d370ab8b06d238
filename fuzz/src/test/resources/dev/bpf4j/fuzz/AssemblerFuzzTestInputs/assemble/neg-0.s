lddw %r0, 0x0
neg %r0
exit
