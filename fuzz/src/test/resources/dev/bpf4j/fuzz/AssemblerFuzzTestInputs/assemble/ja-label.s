mov %r0, 1
ja done
mov %r0, 2
done:
exit
