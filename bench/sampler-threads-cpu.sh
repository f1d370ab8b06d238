#!/bin/bash
# The CPU of the sampler's own threads in a fresh JVM, as bench/RESULTS.md (2026-12-06) reports it:
# runs `profile --pid-self subprog-chain -F 99 --duration 30` (or, with PROGRAM=1, `profile --bpf --engine
# both -- CHILD`), and reads /proc/PID/task/TID/schedstat (ns) of bpf4j-sampler and bpf4j-unwinder (or
# bpf4j-bpf-runner) at 6 s, 26 s and 27 s: the steady state (6-26 s) and the whole run so far.
# usage: bench/sampler-threads-cpu.sh JAR TAG [CHILD]      (output in /tmp/bpf4j-sampler-cpu/)
JAR=$1; TAG=$2; CHILD=$3; D=/tmp/bpf4j-sampler-cpu; mkdir -p $D
if [ -n "$CHILD" ]; then
  java -jar $JAR profile --bpf --engine both -F 99 --duration 30 --out $D/p-$TAG -- $CHILD > $D/p-$TAG.log 2>&1 &
else
  java -jar $JAR profile --pid-self subprog-chain -F 99 --duration 30 --out $D/p-$TAG > $D/p-$TAG.log 2>&1 &
fi
sleep 6; PID=$(pgrep -f "$JAR profile" | head -1)
tid() { for t in /proc/$PID/task/*; do [ "$(cat $t/comm)" = $1 ] && basename $t; done; }
RT=$(tid bpf4j-sampler); UT=$(tid bpf4j-unwinder); [ -z "$UT" ] && UT=$(tid bpf4j-bpf-runner)
ns() { awk '{print $1}' /proc/$PID/task/$1/schedstat; }
csw() { grep ^voluntary_ctxt_switches /proc/$PID/task/$1/status | awk '{print $2}'; }
r0=$(ns $RT); u0=$(ns $UT); c0=$(csw $RT); d0=$(csw $UT)
sleep 20
r1=$(ns $RT); u1=$(ns $UT); c1=$(csw $RT); d1=$(csw $UT)
sleep 1; r2=$(ns $RT); u2=$(ns $UT)
echo "$TAG: 6-26 s: reader $(( (r1-r0)/1000000 )) ms, other $(( (u1-u0)/1000000 )) ms, together $(echo "scale=3; ($r1-$r0+$u1-$u0)/200000000" | bc)% of a CPU; wake-ups reader $((c1-c0)) other $((d1-d0)); whole 0-27 s: reader $((r2/1000000)) ms other $((u2/1000000)) ms; load $(cut -d' ' -f1-3 /proc/loadavg)"
wait
grep -o 'in [0-9.]* s, [0-9]* samples' $D/p-$TAG.log | head -1
