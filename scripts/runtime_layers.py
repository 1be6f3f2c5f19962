#!/usr/bin/env python3
"""scripts/runtime_layers.py [ROOT] — the include graph of runtime/ (docs/architecture.md, "The
programs' runtime"): for every component, the runtime files it includes, and its floor (the
longest include path down to the ground floor). A component is a header with its .cpp;
train_seed.hpp and train_file.cpp are the runner's (its trainers). Exits 1, naming each cycle,
when the files do not include downward only.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
folder = os.path.join(root, "runtime")
files = sorted(f for f in os.listdir(folder) if f.endswith((".hpp", ".cpp")))
group = {"train_seed": "runner", "train_file": "runner"}


def component(name):
    stem = os.path.splitext(name)[0]
    return group.get(stem, stem)


edges = {}
for f in files:
    here = component(f)
    edges.setdefault(here, set())
    with open(os.path.join(folder, f), encoding="utf-8") as text:
        for line in text:
            m = re.match(r'\s*#include "(?:runtime/)?([^"/]+)"', line)
            if m and m.group(1) in files and component(m.group(1)) != here:
                edges[here].add(component(m.group(1)))

cycles, state = [], {}


def visit(node, path):
    state[node] = "open"
    for nxt in sorted(edges[node]):
        if state.get(nxt) == "open":
            cycles.append(path[path.index(nxt):] + [nxt])
        elif nxt not in state:
            visit(nxt, path + [nxt])
    state[node] = "done"


for node in sorted(edges):
    if node not in state:
        visit(node, [node])
if cycles:
    for c in cycles:
        print("cycle: " + " -> ".join(c))
    sys.exit(1)

floor = {}


def floor_of(node):
    if node not in floor:
        floor[node] = 1 + max((floor_of(n) for n in edges[node]), default=-1)
    return floor[node]


for node in sorted(edges, key=lambda n: (floor_of(n), n)):
    print(f"{floor_of(node):2d}  {node}: {' '.join(sorted(edges[node]))}")
