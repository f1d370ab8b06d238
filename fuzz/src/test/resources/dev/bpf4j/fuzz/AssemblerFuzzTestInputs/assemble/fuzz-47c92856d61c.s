call local +1
exit
mov %r0, 0
jeq %r5, 0, +1
call local -3
exit
