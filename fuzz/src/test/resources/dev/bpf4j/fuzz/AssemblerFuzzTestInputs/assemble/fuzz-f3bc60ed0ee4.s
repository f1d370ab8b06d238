mov %r0, 433823601
mov %r3, 31
mov %r4, -1
mov %r5, -600577798
mov %r6, -1543842552
mov %r7, 816087362
mov %r8, -6
mov %r9, 2
lddw %r6, 0x11edf66403ec38be
stdw [%r1+7975], 374822231
lock xchg32 [%r6-48], %r7
exit
