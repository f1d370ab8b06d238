#!/usr/bin/env bash
# Checks bpf4j's flame graph page in a real browser (headless Chromium; Debian: apt-get install chromium).
# Runs `bpf4j demo`, takes the four JIT symbols it prints (main, sub1, sub2, sub3), then:
#   1. loads DIR/flame.html: the page's script must have laid out a label for each of the four frames;
#   2. loads DIR/flame.html#zoom=SUB2: sub2's frame must span the full width, its ancestors too,
#      sub3 must stay visible above it (narrower: sub2 has samples of its own) and frames outside its subtree must be hidden.
# usage: it-tests/tools/flame/check_flame_html.sh [DIR]     (default: a new temporary directory)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
dir="${1:-$(mktemp -d)}"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
[ -n "$browser" ] || { echo "check_flame_html: no chromium on the PATH (apt-get install chromium)" >&2; exit 2; }

out="$("$root/bpf4j" demo --out "$dir" --duration 2 -F 199)"
echo "$out"
grep -q "falling back" <<<"$out" && { echo "check_flame_html: perf_event_open refused, no JIT frames to check" >&2; exit 2; }
sym() { sed -n "s/^  $1 *= \(bpf_prog_[0-9a-f]*_[A-Za-z_]*\)$/\1/p" <<<"$out"; }
main="$(sym main)" sub1="$(sym sub1)" sub2="$(sym sub2)" sub3="$(sym sub3)"
[ -n "$main" ] && [ -n "$sub3" ] || { echo "check_flame_html: the demo printed no chain symbols" >&2; exit 1; }

# A new profile per run; without the background-networking flags Chromium keeps trying to reach Google's hosts.
dom() { timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$(mktemp -d)" --dump-dom "file://$dir/flame.html$1" 2>/dev/null; }
# One line per frame group: title, rect width, display and the label the script drew.
frames() { python3 -c '
import re, sys
for g in re.finditer(r"<g class=\"f\"([^>]*)><title>([^<]*) \(\d+ samples[^<]*</title><rect[^>]*width=\"([0-9.]+)\"[^>]*>(?:</rect>)?\s*<text[^>]*>([^<]*)</text>", sys.stdin.read()):
    hidden = "display: none" in g.group(1)
    print(g.group(2), g.group(3), "hidden" if hidden else "shown", g.group(4) or "-", sep="\t")'; }

fail=0
page="$(dom "" | frames)"
for s in "$main" "$sub1" "$sub2" "$sub3"; do
    label="$(awk -F'\t' -v s="$s" '$1 == s && $3 == "shown" && $2 + 0 > w { w = $2 + 0; l = $4 } END { print l }' <<<"$page")"
    if [ -z "$label" ] || [ "$label" = "-" ] || [[ "$s" != "${label%..}"* ]]; then
        echo "FAIL: no label drawn for $s (got '$label')"; fail=1
    else
        echo "ok: $s drawn as '$label'"
    fi
done

zoomed="$(dom "#zoom=$sub2" | frames)"
# The widest shown frame of that name (the same symbol also appears, narrow, on other paths).
width() { awk -F'\t' -v s="$1" '$1 == s && $3 == "shown" && $2 + 0 > w { w = $2 + 0 } END { if (w > 0) print w }' <<<"$zoomed"; }
for s in "$main" "$sub1" "$sub2"; do
    w="$(width "$s")"
    if [ "$w" = "1200" ]; then echo "ok: zoomed to sub2, $s spans the width"; else echo "FAIL: zoomed to sub2, $s is ${w:-hidden} wide"; fail=1; fi
done
w3="$(width "$sub3")"
# sub3 is sub2's only callee; sub2's own samples (its loop and calls) leave it narrower.
if [ -n "$w3" ] && awk -v w="$w3" 'BEGIN { exit !(w > 0 && w < 1200) }'; then echo "ok: sub3 shown above sub2 (${w3} px of 1200)"
else echo "FAIL: zoomed to sub2, sub3 is ${w3:-hidden} wide"; fail=1; fi
hidden="$(awk -F'\t' '$3 == "hidden"' <<<"$zoomed" | wc -l)"
[ "$hidden" -gt 0 ] && echo "ok: $hidden frames outside sub2's subtree hidden" || { echo "FAIL: nothing hidden when zoomed"; fail=1; }
[ "$fail" = 0 ] && echo "flame.html checked in $browser: OK" || exit 1
