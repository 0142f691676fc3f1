#!/usr/bin/env python3
"""The targets `halftunes download` is held to, read off one run of scripts/bench-downloads.

    python3 scripts/lib/download-targets.py SAMPLES [NAME=LABEL ...]

SAMPLES is the run's samples.txt (`SET:TOOL seconds...`, `SET:TOOL:peak-rss-kib KiB...`); each
NAME=LABEL names a set in the table ("a=200 × 1.0MiB"). Prints a Markdown table, one line a target:
what it asks, what the run measured (ratios of the medians, as the report's first table), and
whether the run met it; then how many it met. A target whose tools did not run is left out.
Sets: a (200 × 1 MiB) and b (1000 × 300 KiB) are held to the same ratios, d (2000 × 2 KiB) to one,
c (one large file) to curl's and dd's speed and its spread; peak RSS to 29 MiB in every set.
"""
import statistics
import sys

samples, labels = {}, {}
for line in open(sys.argv[1], encoding="utf-8"):
    key, *values = line.split()
    if values:
        samples[key] = [float(v) for v in values]
for arg in sys.argv[2:]:
    name, _, label = arg.partition("=")
    labels[name] = label


def median(set_name, tool):
    values = samples.get(f"{set_name}:{tool}")
    return statistics.median(values) if values else None


rows = []  # (target, measured text, met)


def ratio(set_name, tool, versus, limit, what, strict=False):
    """tool's median time ÷ versus's, at most limit (below it when strict)."""
    mine, theirs = median(set_name, tool), median(set_name, versus)
    if mine is None or theirs is None or theirs <= 0:
        return
    value = mine / theirs
    met = value < limit if strict else value <= limit
    rows.append((f"{labels.get(set_name, set_name)}: {what}", f"{value:.2f}×", met))


for name in ("a", "b"):
    ratio(name, "halftunes", "curl+sync", 1.0, "halftunes ≤ 1.0× curl + sync")
    ratio(name, "halftunes", "curl", 1.5, "halftunes ≤ 1.5× curl")
    ratio(name, "halftunes", "aria2c", 1.0, "halftunes faster than aria2c", strict=True)
    ratio(name, "halftunes-process-crash", "curl", 1.0, "halftunes --durability process-crash ≤ 1.0× curl")
ratio("d", "halftunes", "curl+sync", 3.0, "halftunes ≤ 3× curl + sync")

large = samples.get("c:halftunes")
if large:
    label = labels.get("c", "c")
    for versus, limit, what in (("curl", 1.0, "curl's"), ("dd-fdatasync", 0.95, "dd conv=fdatasync's")):
        theirs = median("c", versus)
        if theirs is not None:
            speed = theirs / statistics.median(large)
            rows.append((f"{label}: halftunes ≥ {limit:.2f}× {what} speed", f"{speed:.2f}×", speed >= limit))
    spread = max(large) / statistics.median(large) - 1
    rows.append((f"{label}: halftunes' slowest round within 15 % of its median", f"{spread * 100:+.0f} %", spread <= 0.15))

peaks = [
    (max(values), key.split(":")[0])
    for key, values in samples.items()
    if key.endswith(":peak-rss-kib") and key.split(":")[1] in ("halftunes", "halftunes-process-crash")
]
if peaks:
    peak, where = max(peaks)
    rows.append(("peak RSS of halftunes, both ways, every set: ≤ 29 MiB", f"{peak / 1024:.1f} MiB ({labels.get(where, where)})", peak <= 29 * 1024))

print("| target | this run | |")
print("| --- | --- | --- |")
for target, measured, met in rows:
    print(f"| {target} | {measured} | {'met' if met else '**missed**'} |")
print()
print(f"Met {sum(met for _, _, met in rows)} of the {len(rows)} targets in this run.")
