#!/usr/bin/env python3
"""Prints the Ripple-versus-OpenCombine table from ordo-one/benchmark's `histogramPercentiles` output.

Each benchmark is named "<framework> | <pipeline> | <elements per iteration>"; the median (p50) wall-clock
time and malloc count of one iteration are divided by the elements to give per-element figures.
"""
import collections
import glob
import os
import re
import sys

UNITS = {"ns": 1, "μs": 1_000, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000, "K": 1_000, "M": 1_000_000, "G": 1_000_000_000}


def median(path):
    with open(path) as handle:
        header = handle.readline()
        scale = 1
        unit = re.search(r"\((ns|μs|us|ms|s|K|M|G)\)", header)
        if unit:
            scale = UNITS[unit.group(1)]
        for line in handle:
            percentile, value = line.split("\t")
            if percentile.strip() == "50":
                return float(value) * scale
    return None


def main(folder):
    rows = collections.defaultdict(dict)
    pattern = re.compile(r"\.(Ripple|OpenCombine)_\|_(.+)_\|_(\d+)\.(wallClock|mallocCountTotal)\.histogram")
    for path in glob.glob(os.path.join(folder, "*.tsv")):
        match = pattern.search(os.path.basename(path))
        if not match:
            continue
        framework, pipeline, elements, metric = match.groups()
        value = median(path)
        if value is None:
            continue
        rows[pipeline.replace("_", " ")].setdefault(framework, {})[metric] = value / int(elements)

    print(f"| pipeline | Ripple ns/element | OpenCombine ns/element | Ripple speed-up | Ripple mallocs/element | OpenCombine mallocs/element |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for pipeline in sorted(rows):
        ripple = rows[pipeline].get("Ripple", {})
        peer = rows[pipeline].get("OpenCombine", {})
        time_r, time_o = ripple.get("wallClock"), peer.get("wallClock")
        ratio = f"{time_o / time_r:.2f}×" if time_r and time_o else "—"
        cell = lambda value, digits: "—" if value is None else f"{value:.{digits}f}"
        print(
            f"| {pipeline} | {cell(time_r, 1)} | {cell(time_o, 1)} | {ratio} | "
            f"{cell(ripple.get('mallocCountTotal'), 3)} | {cell(peer.get('mallocCountTotal'), 3)} |"
        )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
