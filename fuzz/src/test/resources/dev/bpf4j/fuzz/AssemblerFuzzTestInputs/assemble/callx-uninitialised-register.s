mov %r1, 1
call %r3
exit
