#!/usr/bin/env bash
# Checks that Linux perf, sampling `bpf4j demo`, names the JIT code and walks its subprogram chain:
# runs the demo with --perf-map under -XX:+PreserveFramePointer, records it with
# `perf record -F 499 --call-graph fp -p PID`, and reads `perf script`:
#   1. some samples name bpf_prog_<tag>_F / bpf_prog_<tag>_demo_chain (from /tmp/perf-PID.map);
#   2. in every sample whose leaf is sub3 (the demo's sub3 symbol), the next frames are sub2, sub1, main
#      in that order, or sub2, sub1, demo_probe, the trampoline, demo_native_mix for the probe's copy — except where the leaf is on sub3's first instructions or its ret, where a
#      frame-pointer walk must lose the caller (see docs/profiling.md), counted apart;
#   3. samples through the native probe name bpf_trampoline_demo_native_mix below demo_probe.
# usage: it-tests/tools/perf/check_perf_demo.sh [SECONDS]   (exit 2: perf or perf_event_open missing)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
secs="${1:-4}"
command -v perf >/dev/null || { echo "check_perf_demo: perf is not installed" >&2; exit 2; }
jar="$root/cli/target/bpf4j.jar"
[ -f "$jar" ] || { echo "check_perf_demo: build the CLI first (mvn -pl cli -am package)" >&2; exit 2; }
dir="$(mktemp -d)"
java -XX:+PreserveFramePointer -jar "$jar" demo --perf-map --duration $((secs + 4)) --out "$dir/demo" >"$dir/demo.out" 2>&1 &
pid=$!
# record once the workload runs (the demo says so when its sampler starts)
for _ in $(seq 60); do grep -q "^sampling every thread" "$dir/demo.out" && break; sleep 0.5; done
sleep 0.5
if ! perf record -q -F 499 --call-graph fp -p "$pid" -o "$dir/perf.data" -- sleep "$secs" 2>"$dir/perf.err"; then
    kill "$pid" 2>/dev/null || true
    echo "check_perf_demo: perf record refused: $(cat "$dir/perf.err")" >&2; exit 2
fi
wait "$pid" || { cat "$dir/demo.out"; echo "check_perf_demo: the demo failed" >&2; exit 1; }
sym() { sed -n "s/^  $1 *= \(bpf_prog_[0-9a-f]*_[A-Za-z_]*\)$/\1/p" "$dir/demo.out"; }
main="$(sym main)" sub1="$(sym sub1)" sub2="$(sym sub2)" sub3="$(sym sub3)"
[ -n "$main" ] && [ -n "$sub3" ] || { cat "$dir/demo.out"; echo "check_perf_demo: the demo printed no chain symbols" >&2; exit 1; }
perf script -i "$dir/perf.data" -F ip,sym,symoff 2>/dev/null >"$dir/script.txt"
python3 - "$dir/script.txt" "$main" "$sub1" "$sub2" "$sub3" <<'PY'
import re, sys
path, main, sub1, sub2, sub3 = sys.argv[1:]
samples, cur = [], []
for line in open(path):
    line = line.rstrip("\n")
    if not line.strip():
        if cur: samples.append(cur)
        cur = []
        continue
    m = re.match(r"\s*([0-9a-f]+)\s+(\S+?)(?:\+0x([0-9a-f]+))?$", line)
    if m: cur.append((m.group(2), int(m.group(3) or "0", 16)))
if cur: samples.append(cur)
named = sum(1 for s in samples if any(f.startswith("bpf_prog_") for f, _ in s))
leaf3 = [s for s in samples if s and s[0][0] == sub3]
# sub3: its first two instructions (push rbp; mov rbp, rsp) are at offsets 0 and 1; its ret is its last byte
ends = {}
for s in leaf3: ends[s[0][1]] = ends.get(s[0][1], 0) + 1
last = max(ends) if ends else 0
# the probe's copy of the chain has the same subprogram symbols (same code, same tag) under demo_probe,
# which the trampoline called from demo_native_mix
def walks(s):
    f = [x for x, _ in s]
    if f[1:4] == [sub2, sub1, main]: return True
    return f[1:3] == [sub2, sub1] and len(f) > 5 and f[3].endswith("_demo_probe") and f[4:6] == ["bpf_trampoline_demo_native_mix", "demo_native_mix"]
walked = [s for s in leaf3 if walks(s)]
edge = [s for s in leaf3 if s[0][1] in (0, 1, last) and s not in walked]
other = [s for s in leaf3 if s not in walked and s not in edge]
probe = sum(1 for s in samples if any(f == "bpf_trampoline_demo_native_mix" for f, _ in s)
            and any(f.endswith("_demo_probe") for f, _ in s))
print(f"perf script: {len(samples)} samples, {named} name bpf_prog_ code, {len(leaf3)} in sub3: "
      f"{len(walked)} walk sub3 -> sub2 -> sub1 -> main (or -> demo_probe -> trampoline -> demo_native_mix), {len(edge)} on sub3's entry/ret lose a caller (fp walk), "
      f"{len(other)} other; {probe} through bpf_trampoline_demo_native_mix -> demo_probe")
ok = named > 0 and len(walked) > 0 and not other
if not ok:
    for s in other[:5]: print("  not walked:", " <- ".join(f"{f}+{o:#x}" for f, o in s[:6]))
print("ok" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
