mov %r1, 5
call local fact
exit
fact:
mov %r0, 1
jeq %r1, 0, done
mov %r6, %r1
sub %r1, 1
call local fact
mul %r0, %r6
done:
exit
