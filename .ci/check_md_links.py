#!/usr/bin/env python3
"""Checks the relative links of every tracked *.md file: the file exists and, for #anchor, that a
heading of that file has the GitHub anchor. Usage: .ci/check_md_links.py [repo-root]. Exit 1 on a broken link."""
import os, re, subprocess, sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
files = subprocess.run(["git", "-C", root, "ls-files", "*.md"], capture_output=True, text=True, check=True).stdout.split()
link = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")

def anchors(path):
    out, seen, fence = set(), {}, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        if fence or not line.startswith("#"):
            continue
        a = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.add(a if n == 0 else f"{a}-{n}")
    return out

bad = 0
for f in files:
    text = re.sub(r"```.*?```", "", open(os.path.join(root, f), encoding="utf-8").read(), flags=re.S)
    for target in link.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(root, os.path.dirname(f), path)) if path else os.path.join(root, f)
        if not os.path.exists(full):
            print(f"{f}: missing file {target}"); bad += 1
        elif anchor and full.endswith(".md") and anchor not in anchors(full):
            print(f"{f}: missing anchor {target}"); bad += 1
print(f"{len(files)} files checked, {bad} broken links")
sys.exit(1 if bad else 0)
