#!/usr/bin/env bash
# Reads bpf4j's pprof output with an independent decoder: the npm package pprof-format (the pure
# JavaScript profile.proto encoder/decoder used by Node's pprof), installed into a temporary folder.
# Checks that the profile decodes, that its samples add up to the folded file's counts and that the
# demo's four JIT functions are in its function table, then prints the top functions by self samples.
# usage: it-tests/tools/pprof/check_pprof.sh [DIR]     (runs `bpf4j demo --out DIR`; default: a temporary folder)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
dir="${1:-$(mktemp -d)}"
command -v node >/dev/null && command -v npm >/dev/null || { echo "check_pprof: needs node and npm" >&2; exit 2; }

mkdir -p "$dir"
"$root/bpf4j" demo --out "$dir" --duration 2 -F 199 > "$dir/demo.txt"
work="$(mktemp -d)"
(cd "$work" && npm install --silent --no-audit --no-fund pprof-format@2 >/dev/null)
NODE_PATH="$work/node_modules" node - "$dir/profile.pb.gz" "$dir/stacks.folded" "$dir/demo.txt" <<'JS'
const fs = require('fs'), zlib = require('zlib');
const { Profile } = require('pprof-format');
const [pb, folded, demo] = process.argv.slice(2);
const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(pb)));
const str = i => p.stringTable.strings[Number(i)];
const fail = m => { console.log('FAIL: ' + m); process.exitCode = 1; };
const types = p.sampleType.map(t => str(t.type) + '/' + str(t.unit));
console.log('sample types: ' + types.join(', ') + '; period ' + p.period + ' ' + str(p.periodType.unit));
if (types.join() !== 'samples/count,cpu/nanoseconds') fail('sample types ' + types);
const total = p.sample.reduce((a, s) => a + Number(s.value[0]), 0);
const foldedTotal = fs.readFileSync(folded, 'utf8').trim().split('\n').reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
console.log('samples: ' + total + ' (folded file: ' + foldedTotal + ')');
if (total !== foldedTotal) fail('pprof has ' + total + ' samples, the folded file ' + foldedTotal);
const fnName = new Map(p.function.map(f => [Number(f.id), str(f.name)]));
const locName = new Map(p.location.map(l => [Number(l.id), fnName.get(Number(l.line[0].functionId))]));
const names = new Set(fnName.values());
for (const s of fs.readFileSync(demo, 'utf8').matchAll(/^  (main|sub1|sub2|sub3) += (\S+)$/mg)) {
  if (names.has(s[2])) console.log('ok: ' + s[1] + ' ' + s[2] + ' is a function'); else fail(s[1] + ' ' + s[2] + ' missing');
}
const self = new Map();
for (const s of p.sample) { const leaf = locName.get(Number(s.locationId[0])); self.set(leaf, (self.get(leaf) || 0) + Number(s.value[0])); }
console.log('top functions by self samples:');
[...self].sort((a, b) => b[1] - a[1]).slice(0, 6).forEach(([n, c]) => console.log('  ' + String(c).padStart(5) + '  ' + n));
if (!process.exitCode) console.log('profile.pb.gz decoded by pprof-format: OK');
JS
