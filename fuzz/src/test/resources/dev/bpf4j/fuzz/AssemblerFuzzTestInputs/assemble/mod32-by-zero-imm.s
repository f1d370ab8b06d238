lddw %r0, 0xfedcba9876543210
mod32 %r0, 0
exit
