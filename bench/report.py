#!/usr/bin/env python3
"""Prints the benchmark tables from criterion's estimates (run the benches first): median
time per operation, operations per second and, for the codec group, the ratio to the floor
measured in the same run."""
import json, os, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "criterion")
FLOORS = {"sample_task": "floor_serde_json_ignored_any"}
if not os.path.isdir(root):
    sys.exit("no criterion results: run `cargo bench -p a2a-wire-bench` first")
for group in sorted(os.listdir(root)):
    gdir = os.path.join(root, group)
    rows = {}
    for name in sorted(os.listdir(gdir)) if os.path.isdir(gdir) else []:
        est = os.path.join(gdir, name, "new", "estimates.json")
        if os.path.exists(est):
            rows[name] = json.load(open(est))["median"]["point_estimate"]  # nanoseconds
    if not rows:
        continue
    floor = rows.get(FLOORS.get(group, ""))
    print(f"\n| {group} benchmark | median | per second | x floor |")
    print("|---|---:|---:|---:|")
    for name, ns in rows.items():
        ratio = f"{ns / floor:.2f}" if floor else "-"
        print(f"| `{name}` | {ns / 1000:.2f} µs | {1e9 / ns:,.0f} | {ratio} |")
