#!/usr/bin/env bash
# Builds bench/target/benchmarks.jar, runs the JMH benchmarks (average time, ns/op) on the engines
# that are present, and prints a Markdown report (also written to target/jmh/report.md).
#   bench/run.sh                 # the full run, ~9 minutes on 2 cores
#   JMH_TIMING="-wi 1 -w 200ms -i 1 -r 200ms" bench/run.sh   # other iteration settings (a smoke run)
#   SKIP_BUILD=1 bench/run.sh    # reuse an existing benchmarks.jar
#   KERNEL_TIMING="1 50" bench/run.sh   # kernel column: measurements and ms per measurement (default "5 200")
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
jar="$here/target/benchmarks.jar"
out="$here/target/jmh"
mkdir -p "$out"

if [[ -z "${SKIP_BUILD:-}" ]]; then
  (cd "$root" && mvn -q -pl bench -am package -DskipTests)
fi

# Engines on the class path, the agreed results and the interpreter's dynamic instruction counts.
# Fails (non-zero) if the engines, gcc and the step counter disagree on any workload.
java -cp "$jar" dev.bpf4j.bench.WorkloadFacts > "$out/facts.json"
bpf_engines="$(python3 -c 'import json,sys; print(",".join(json.load(open(sys.argv[1]))["engines"]))' "$out/facts.json")"
engines="$bpf_engines"
if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["gcc"] else 1)' "$out/facts.json"; then
  engines="$engines,gcc"
  # gcc's functions also through the JIT's JNI entry, the call JIT runs pay (JniEntry is in the JIT module)
  if [[ ",$bpf_engines," == *",jit,"* ]]; then engines="$engines,gcc-jni"; fi
fi

# The kernel column: each workload in the Linux kernel, timed by the kernel itself (BPF_PROG_TEST_RUN
# repeat); {"available": false, ...} where bpf() is refused, and the report then leaves the column out.
# shellcheck disable=SC2086 # word splitting of $KERNEL_TIMING is intended
java -cp "$jar" dev.bpf4j.bench.KernelTimings ${KERNEL_TIMING:-5 200} > "$out/kernel.json"

# MapLookupBenchmark: each engine with the map helpers it inlines inlined and called (interp: the array ones; JIT: also the hash lookup)
lookup_engines="$(python3 -c 'import sys; e=sys.argv[1].split(","); print(",".join([y for x in ("interp", "jit", "jvm") if x in e for y in (x, x + "-call")]))' "$bpf_engines")"
timing="${JMH_TIMING:--wi 3 -w 1s -i 5 -r 1s}"
# shellcheck disable=SC2206 # word splitting of $timing is intended
cmd=(java -jar "$jar" -f 1 $timing -bm avgt -tu ns
     -p "engine=$engines" -p "bpfEngine=$bpf_engines" -p "lookupEngine=$lookup_engines"
     -rf json -rff "$out/results.json" 'dev\.bpf4j\.bench\..*Benchmark')
echo "+ ${cmd[*]}" >&2
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
"${cmd[@]}" > "$out/jmh.log"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
{
  python3 "$here/report.py" "$out/facts.json" "$out/results.json" "$out/kernel.json"
  echo
  echo "* Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'),"\
       "$(java -version 2>&1 | head -1); load average $load_before before and $load_after after the run"\
       "(the machine is shared: expect noise). $(date -u '+%Y-%m-%d %H:%M UTC')."
} | tee "$out/report.md"
