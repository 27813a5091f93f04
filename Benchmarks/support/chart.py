"""Charts the benchmarks draw from their own output, for docs/performance.md (matplotlib, from PyPI).

  chart.py rate OUT.png TITLE LABEL=CSV:COLUMN ...   pushes a second over a campaign, from a deliveries export's times
  chart.py latency OUT.png TITLE LABEL=FILE ...      the distribution of latencies, one figure in ms a line
  chart.py memory OUT.png TITLE FILE                 RSS over a run, "MINUTE MB" a line

After TITLE, `--sink TEXT` names the hub sink the figures were measured against (its round trip). Every chart names
the machine it was measured on (CPU model and cores) under its title, and the sink beside it.
"""
import csv
import os
import sys
from datetime import datetime

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def machine():
    model = "unknown CPU"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{model}, {os.cpu_count()} cores"


def figure(title, sink=None):
    fig, axes = plt.subplots(figsize=(8, 3.6), dpi=100)
    fig.suptitle(title, fontsize=11)
    axes.set_title(machine() + (f"; hub sink: {sink}" if sink else ""), fontsize=8, color="#555555")
    axes.grid(True, alpha=0.3)
    return fig, axes


def times(path, column):
    with open(path) as file:
        return sorted(
            datetime.fromisoformat(row[column].replace("Z", "+00:00")).timestamp() for row in csv.DictReader(file) if row[column]
        )


def rate(out, title, series, sink=None, step=0.1):
    """Each series' pushes a second in steps of `step` seconds, from the first push of all series."""
    fig, axes = figure(title, sink)
    loaded = [(label, times(*spec.rsplit(":", 1))) for label, spec in series]
    for label, stamps in loaded:
        start = stamps[0]
        bins = int((stamps[-1] - start) / step) + 1
        counts = [0] * bins
        for stamp in stamps:
            counts[int((stamp - start) / step)] += 1
        axes.plot([i * step for i in range(bins)], [c / step for c in counts], label=f"{label} ({len(stamps):,})", linewidth=1.2)
    axes.set_xlabel("seconds from the first push of each kind its hub accepted")
    axes.set_ylabel("pushes a second")
    axes.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out)


def latency(out, title, series, sink=None):
    fig, axes = figure(title, sink)
    for label, path in series:
        values = sorted(float(line) for line in open(path) if line.strip())
        axes.plot(values, [(i + 1) / len(values) for i in range(len(values))], label=f"{label} ({len(values)})", linewidth=1.2)
    axes.set_xlabel("milliseconds")
    axes.set_ylabel("share at or below")
    axes.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out)


def memory(out, title, path, sink=None):
    fig, axes = figure(title, sink)
    points = [tuple(float(v) for v in line.split()[:2]) for line in open(path) if line.strip()]
    axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3, linewidth=1.2)
    axes.set_xlabel("minutes")
    axes.set_ylabel("gateway RSS (MB)")
    axes.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(out)


def main(argv):
    kind, out, title, *rest = argv
    sink = None
    if rest[:1] == ["--sink"]:
        sink, rest = rest[1], rest[2:]
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    if kind == "memory":
        memory(out, title, rest[0], sink)
    else:
        series = [tuple(item.split("=", 1)) for item in rest]
        (rate if kind == "rate" else latency)(out, title, series, sink)
    print(f"chart: {out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
