call local +1
exit
stdw [%r3-8], 0
mov %r0, 0
exit
