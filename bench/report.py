#!/usr/bin/env python3
"""Prints the codec benchmark table from criterion's estimates (run `make bench` first):
median time per operation, operations per second, and the ratio to the floor measured in
the same run."""
import json, os, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "criterion")
group = "sample_task"
floor_name = "floor_serde_json_ignored_any"
rows = {}
gdir = os.path.join(root, group)
if not os.path.isdir(gdir):
    sys.exit("no criterion results: run `cargo bench -p a2a-wire-bench` first")
for name in sorted(os.listdir(gdir)):
    est = os.path.join(gdir, name, "new", "estimates.json")
    if os.path.exists(est):
        rows[name] = json.load(open(est))["median"]["point_estimate"]  # nanoseconds
floor = rows.get(floor_name)
print(f"| {group} benchmark | median | per second | x floor |")
print("|---|---:|---:|---:|")
for name, ns in rows.items():
    ratio = f"{ns / floor:.2f}" if floor else "-"
    print(f"| `{name}` | {ns / 1000:.2f} µs | {1e9 / ns:,.0f} | {ratio} |")
