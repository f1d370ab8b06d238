#!/usr/bin/env python3
"""Turns JMH's JSON results (-rf json) plus WorkloadFacts' JSON (and KernelTimings' JSON, when given)
into the Markdown benchmark report."""
import json
import math
import sys

WORKLOADS = ["fnv1a", "parse", "xorshift", "sort"]
LABELS = {"fnv1a": "FNV-1a, 1500 B", "parse": "IPv4/TCP parse, 64 B", "xorshift": "xorshift, 10,000 rounds",
          "sort": "bubble sort, 64 u32"}
TARGET_JIT_GCC = 1.15
TARGET_INTERP_JIT = 30.0
TARGET_NS_PER_INSN = 1.5


def load_scores(path, best=False):
    """(benchmark class, param tuple) -> (score ns/op, error); with best, (fastest iteration, nan)."""
    scores = {}
    for r in json.load(open(path)):
        cls = r["benchmark"].split(".")[-2]
        params = r.get("params", {})
        if cls == "ProbeBenchmark":  # two methods, one "probe" parameter
            cls += "." + r["benchmark"].split(".")[-1]
        key = (cls, params.get("workload") or params.get("mapKind") or params.get("helper"), params.get("engine") or params.get("bpfEngine") or params.get("probe")
               or params.get("lookupEngine"))
        m = r["primaryMetric"]
        if best:
            scores[key] = (min(x for fork in m["rawData"] for x in fork), float("nan"))
            continue
        err = m.get("scoreError")
        err = float(err) if isinstance(err, (int, float)) else float("nan")  # "NaN" with one iteration
        scores[key] = (float(m["score"]), err)
    return scores


def fmt(v):
    if v is None:
        return "—"
    score, err = v
    if math.isnan(err):
        return f"{score:,.0f}" if score >= 1000 else f"{score:.1f}"
    if score >= 1000:
        return f"{score:,.0f} ± {err:,.0f}"
    return f"{score:.1f} ± {err:.1f}"


def ratio(a, b):
    if a is None or b is None:
        return None
    return "noise" if "noise" in (a, b) else a[0] / b[0]


def fmt_ratio(r, target=None, higher_is_better=False):
    if r is None:
        return "—"
    if r == "noise":
        return "— (below noise)"
    text = f"{r:.2f}×" if r < 100 else f"{r:.0f}×"
    if target is not None:
        met = r >= target if higher_is_better else r <= target
        text += " ✓" if met else " ✗"
    return text


def load_kernel(path):
    """KernelTimings' output: (workload -> {"mean_ns"...} or {"refused": ...}, None), or (None, why not)."""
    if path is None:
        return None, "no kernel timings were given"
    k = json.load(open(path))
    if not k.get("available"):
        return None, k.get("reason", "bpf() is refused")
    return k["timings"], None


def kernel_cell(k, w, key="mean_ns"):
    t = k.get(w) if k else None
    if t is None:
        return "—", None
    if "refused" in t:
        return "refused¹", None
    return fmt((t[key], float("nan"))), (t[key], float("nan"))


def net_of_entry(v, empty, resolution=0.0):
    """v minus the empty call (the cost of getting in and out); None when either is missing, "noise"
    when the difference is within the two measurements' uncertainty: their error bars, or 5% of v
    for fastest iterations, which have none, and at least their resolution (the kernel's whole ns)
    (a ratio to such a difference would mean nothing)."""
    if v is None or empty is None:
        return None
    d, errors = v[0] - empty[0], v[1] + empty[1]
    if d <= max(resolution, 0.05 * v[0] if math.isnan(errors) else errors):
        return "noise"
    return (d, float("nan"))


def kernel_net(k, w, key="mean_ns"):
    """The kernel's time for workload w minus its empty program's: the loop BPF_PROG_TEST_RUN runs around
    each run costs that much (6 ns here), as a call costs gcc its empty call."""
    return net_of_entry(kernel_cell(k, w, key)[1], kernel_cell(k, "empty", key)[1], resolution=1.0)


def best_table(s, k=None):
    """Ratios from each benchmark's fastest measurement iteration: on a shared machine other
    processes only ever add time, so the minimum is the least disturbed sample."""
    wl = lambda w, e: s.get(("WorkloadBenchmark", w, e))
    kh = " kernel ns/op | kernel/gcc net of entry |" if k else ""
    print("| workload (fastest iteration) | interp ns/op | JIT ns/op | gcc ns/op | JIT/gcc | gcc ns/op, JNI entry | JIT/gcc, same entry | interp/JIT |" + kh)
    print("|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if k else ""))
    gcc_empty = s.get(("EmptyCallBenchmark", None, "gcc"))
    for w in WORKLOADS:
        i, j, g, gj = wl(w, "interp"), wl(w, "jit"), wl(w, "gcc"), wl(w, "gcc-jni")
        kc = ""
        if k:
            text, kv = kernel_cell(k, w, "best_ns")
            kc = f" {text} | {fmt_ratio(ratio(kernel_net(k, w, 'best_ns'), net_of_entry(g, gcc_empty)))} |"
        print(f"| {LABELS[w]} | {fmt(i)} | {fmt(j)} | {fmt(g)} | {fmt_ratio(ratio(j, g), TARGET_JIT_GCC)} "
              f"| {fmt(gj)} | {fmt_ratio(ratio(j, gj))} | {fmt_ratio(ratio(i, j), TARGET_INTERP_JIT, True)} |" + kc)
    e = {x: s.get(("EmptyCallBenchmark", None, x)) for x in ("interp", "jit", "gcc", "gcc-jni")}
    h = {x: s.get(("HelperCallBenchmark", "identity", x)) for x in ("interp", "jit")}
    t = {x: s.get(("HelperCallBenchmark", "ktime", x)) for x in ("interp", "jit")}
    r = {x: s.get(("HelperCallBenchmark", "prandom", x)) for x in ("interp", "jit")}
    ke = f" {kernel_cell(k, 'empty', 'best_ns')[0]} | |" if k else ""
    print(f"| empty program call | {fmt(e['interp'])} | {fmt(e['jit'])} | {fmt(e['gcc'])} | | {fmt(e['gcc-jni'])} | | |" + ke)
    print(f"| program with one Java helper call | {fmt(h['interp'])} | {fmt(h['jit'])} | | | | | |" + (" | |" if k else ""))
    print(f"| program with one `bpf_ktime_get_ns` (JIT: native code) | {fmt(t['interp'])} | {fmt(t['jit'])} | | | | | |" + (" | |" if k else ""))
    print(f"| program with one `bpf_get_prandom_u32` (JIT: native code) | {fmt(r['interp'])} | {fmt(r['jit'])} | | | | | |" + (" | |" if k else ""))
    for kind, label, prop in (("array", "array-map lookup", "inlineArrayLookup"),
                              ("hash", "hash-map lookup, 16-byte key", "inlineHashLookup"),
                              ("array-update", "array-map update, 8-byte value", "inlineArrayUpdate")):
        m = {x: s.get(("MapLookupBenchmark", kind, x)) for x in ("interp", "interp-call", "jit", "jit-call")}
        what = "update" if kind.endswith("update") else "lookup"
        called = f"`-Dbpf4j.jit.{prop}=false`, `-Dbpf4j.interp.inlineMapHelpers=false`"
        print(f"| program with one {label} (both: inlined) | {fmt(m['interp'])} | {fmt(m['jit'])} | | | | | |" + (" | |" if k else ""))
        print(f"| the same, {what} called ({called}) | {fmt(m['interp-call'])} | {fmt(m['jit-call'])} | | | | | |"
              + (" | |" if k else ""))


def main(facts_path, results_path, kernel_path=None):
    facts = json.load(open(facts_path))
    s = load_scores(results_path)
    k, k_missing = load_kernel(kernel_path)
    wl = lambda w, e: s.get(("WorkloadBenchmark", w, e))
    empty = {e: s.get(("EmptyCallBenchmark", None, e)) for e in ("interp", "jit", "gcc", "gcc-jni")}

    print("| workload | interp ns/op | JIT ns/op | gcc ns/op | JIT/gcc | gcc ns/op, JNI entry | JIT/gcc, same entry | interp/JIT | JIT/gcc net of entry "
          "| BPF insns executed | interp ns/insn | interp ns/insn net of entry |" + (" kernel ns/op | kernel/gcc net of entry |" if k else ""))
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if k else ""))
    misses = []
    for w in WORKLOADS:
        i, j, g, gj = wl(w, "interp"), wl(w, "jit"), wl(w, "gcc"), wl(w, "gcc-jni")
        insns = facts["workloads"][w]["insns"]
        per = None if i is None else i[0] / insns
        net = None if i is None or empty["interp"] is None else (i[0] - empty["interp"][0]) / insns
        jg, ij = ratio(j, g), ratio(i, j)
        jg_net = ratio(net_of_entry(j, empty["jit"]), net_of_entry(g, empty["gcc"]))
        print(f"| {LABELS[w]} | {fmt(i)} | {fmt(j)} | {fmt(g)} | {fmt_ratio(jg, TARGET_JIT_GCC)} "
              f"| {fmt(gj)} | {fmt_ratio(ratio(j, gj))} | {fmt_ratio(ij, TARGET_INTERP_JIT, True)} | {fmt_ratio(jg_net)} | {insns:,} "
              f"| {'—' if per is None else f'{per:.2f}' + (' ✓' if per < TARGET_NS_PER_INSN else ' ✗')} "
              f"| {'—' if net is None else f'{net:.2f}'} |" + (f" {kernel_cell(k, w)[0]} | {fmt_ratio(ratio(kernel_net(k, w), net_of_entry(g, empty['gcc'])))} |" if k else ""))
        if jg is not None and jg > TARGET_JIT_GCC:
            misses.append(f"{w}: JIT/gcc {jg:.2f}× (target ≤ {TARGET_JIT_GCC}×)")
        if ij is not None and ij < TARGET_INTERP_JIT:
            misses.append(f"{w}: interp/JIT {ij:.1f}× (target ≥ {TARGET_INTERP_JIT:.0f}×)")
        if per is not None and per >= TARGET_NS_PER_INSN:
            misses.append(f"{w}: interpreter {per:.2f} ns/insn (target < {TARGET_NS_PER_INSN})")

    print()
    print(f"* Call from Java into the empty program `r0 = 0; exit`: interp {fmt(empty['interp'])} ns, "
          f"JIT {fmt(empty['jit'])} ns; gcc empty C function through jffi {fmt(empty['gcc'])} ns, "
          f"through the JIT's JNI entry {fmt(empty['gcc-jni'])} ns.")
    for kind, what in (("identity", "One call of a trivial Java helper"),
                       ("ktime", "One `bpf_ktime_get_ns` (the JIT calls its native form, the interpreter the Java body)"),
                       ("prandom", "One `bpf_get_prandom_u32` (the JIT calls its native form, the interpreter the Java body)")):
        parts = []
        for e, name in (("interp", "interp"), ("jit", "JIT")):
            prog = s.get(("HelperCallBenchmark", kind, e))
            if prog is not None and empty[e] is not None:
                d = prog[0] - empty[e][0]
                note = ", i.e. below the noise" if d <= 0 else ""
                parts.append(f"{name} {d:.1f} ns ({fmt(prog)} ns for the program "
                             f"minus {empty[e][0]:.1f} ns empty{note})")
            else:
                parts.append(f"{name} —")
        print(f"* {what} (helper program minus empty program): " + "; ".join(parts) + ".")
    for kind, what, call in (("array", "An ARRAY map counter (`bpf_map_lookup_elem` with the key on the stack, then `++*value`)", "lookup"),
                             ("hash", "A HASH map counter (64 flows, 16-byte keys) (`bpf_map_lookup_elem` with the key on the stack, "
                                      "then `++*value`)", "lookup"),
                             ("array-update", "An ARRAY map update (`bpf_map_update_elem` of an 8-byte value, key and value on "
                                              "the stack, `BPF_ANY`)", "update")):
        m = {e: s.get(("MapLookupBenchmark", kind, e)) for e in ("interp", "interp-call", "jit", "jit-call")}
        if all(v is not None for v in m.values()):
            print(f"* {what}: interp {fmt(m['interp'])} ns with the {call} inlined, {fmt(m['interp-call'])} ns with the helper's "
                  f"Java body called; JIT {fmt(m['jit'])} ns inlined, {fmt(m['jit-call'])} ns with it called through the Java "
                  "helper (inlining turned off).")
    engines = ", ".join(facts["engines"]) + (", gcc" if facts["gcc"] else "")
    print("* JIT runs enter their code through a JNI native method bound to a trampoline (`JniEntry`), not jffi's "
          "`invokeN2`, which gcc's functions are called through (the issue's baseline). \"gcc ns/op, JNI entry\" calls "
          "gcc's function through that same entry, so \"JIT/gcc, same entry\" compares the generated code with gcc's "
          "when both pay the same call.")
    print(f"* Engines measured: {engines}. gcc flags: `{facts['gcc_flags']}`. "
          "All engines, gcc and the step counter returned the same value for every workload before timing.")
    print("* Targets (✓ met / ✗ missed): JIT ≤ 1.15× gcc, JIT ≥ 30× faster than the interpreter, "
          "interpreter < 1.5 ns per executed BPF instruction (ns/op ÷ instructions, entry cost included). "
          "The \"net of entry\" columns subtract each engine's empty-call time (gcc: the empty C function), "
          "to separate code quality from the cost of getting in and out; \"below noise\" where that difference is within "
          "the two measurements' error bars (5% of the op for the fastest iteration).")
    if misses:
        print("* Missed: " + "; ".join(misses) + ".")
    if k:
        refused = [f"{w} ({k[w]['refused']})" for w in WORKLOADS if w in k and "refused" in k[w]]
        print("* Kernel: each workload loaded into the Linux kernel (bpf-kernel, the input in an array map, followed by 64 zero bytes: see bench/README.md) and run with "
              "BPF_PROG_TEST_RUN `repeat`; the kernel times the loop around the runs itself, so its ns/op has no system call "
              "and no Java→native call in it, only the loop's own cost per run (what its empty program takes); mean of the "
              "measurements (the fastest in the second table); the kernel reports whole ns. \"kernel/gcc net of entry\" divides "
              "the kernel's time minus its empty program's by gcc's time minus its empty call (\"below noise\" where the "
              f"kernel's difference is within 1 ns). Empty program in the kernel: {kernel_cell(k, 'empty')[0]} ns."
              + (" ¹ Refused by the kernel verifier: " + "; ".join(refused) + "." if refused else ""))
    else:
        print(f"* Kernel column left out: {k_missing}.")
    if "jit" not in facts["engines"]:
        print("* The JIT engine was not on the class path: its columns are empty.")
    print()
    best = load_scores(results_path, best=True)
    best_table(best, k)
    jvm_table(best)
    probe_table(best)


def jvm_table(s):
    """The JVM-bytecode engine beside the interpreter and the JIT, fastest iteration (docs/jvm-engine.md)."""
    if all(s.get(("WorkloadBenchmark", w, "jvm")) is None for w in WORKLOADS):
        return
    print()
    print("| JVM engine (fastest iteration) | interp ns/op | jvm ns/op | JIT ns/op | jvm/JIT | interp/jvm |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = [(w, s.get(("WorkloadBenchmark", w, "interp")), s.get(("WorkloadBenchmark", w, "jvm")), s.get(("WorkloadBenchmark", w, "jit")))
            for w in WORKLOADS]
    rows += [(f"{label}", s.get((bench, param, "interp")), s.get((bench, param, "jvm")), s.get((bench, param, "jit")))
             for bench, param, label in (("EmptyCallBenchmark", None, "empty program call"),
                                         ("HelperCallBenchmark", "identity", "one Java helper call"),
                                         ("HelperCallBenchmark", "ktime", "one `bpf_ktime_get_ns`"),
                                         ("MapLookupBenchmark", "array", "one array lookup"),
                                         ("MapLookupBenchmark", "hash", "one hash lookup"))]
    for label, i, v, j in rows:
        print(f"| {label} | {fmt(i)} | {fmt(v)} | {fmt(j)} | {fmt_ratio(ratio(v, j))} | {fmt_ratio(ratio(i, v))} |")


PROBES = [("none", "nothing attached"), ("jit-direct", "JIT, called directly"),
          ("jit-java", "JIT + one Java helper, direct"),
          ("jit-upcall", "JIT + one Java helper, forced upcall"), ("interp", "interpreter (upcall)")]


def probe_table(s):
    """ProbeBenchmark, fastest iteration: ns per call of a probed native function and the hit's cost."""
    loop = {p: s.get(("ProbeBenchmark.loop", None, p)) for p, _ in PROBES}
    call = {p: s.get(("ProbeBenchmark.call", None, p)) for p, _ in PROBES}
    if all(v is None for v in loop.values()):
        return
    print()
    print("| native probe (fastest iteration) | ns per call from C | hit cost (minus none) | ns per jffi call |")
    print("|---|---:|---:|---:|")
    for p, label in PROBES:
        hit = "—" if p == "none" or loop[p] is None or loop["none"] is None else f"{loop[p][0] - loop['none'][0]:.1f}"
        print(f"| {label} | {fmt(loop[p])} | {hit} | {fmt(call[p])} |")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: report.py facts.json results.json [kernel.json]")
    main(*sys.argv[1:])
