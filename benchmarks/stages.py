"""Where `bottleneck-lab analyze PATH --format json` spends its time and memory, stage by stage.

    PYTHONPATH=. python benchmarks/stages.py TRACE.json

Runs the stages the CLI runs, in one process and in the same order (decode, frame, facts,
memory, summary, each detector, the JSON report), and prints for each its wall and CPU seconds,
the RSS after it and the peak RSS so far. Then, on a second reading of the file, the parts of
decode alone: splitting the file into event slices (msgspec, two passes), the typed decode of
the slices into structs, and building numpy columns from the structs: the first two are the
JSON-parsing floor that any analysis of the file pays.
"""

from __future__ import annotations

import gc
import resource
import sys
import time
from pathlib import Path


class Clock:
    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def mark(self, label: str) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        rss_mb = int(Path("/proc/self/statm").read_text().split()[1]) * 4096 / 1e6
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{label:30s} {wall - self.wall:7.2f} s  cpu {cpu - self.cpu:6.2f} s  "
            f"rss {rss_mb:6.0f} MB  peak {peak_mb:6.0f} MB",
            flush=True,
        )
        self.wall, self.cpu = wall, cpu


def stages(path: Path) -> None:
    clock = Clock()
    from bottleneck_lab import analyze as A
    from bottleneck_lab import detectors as D_
    from bottleneck_lab import facts, memory
    from bottleneck_lab import rank_analysis as R
    from bottleneck_lab.efficiency import PeakChoice, efficiency
    from bottleneck_lab.report.json_report import render_json
    from bottleneck_lab.trace import decode as D
    from bottleneck_lab.trace.frame import build_frame

    clock.mark("imports")
    raw = D.decode(path)
    clock.mark("decode")
    frame = build_frame(raw, 0)
    del raw
    clock.mark("frame")
    peak = PeakChoice(None, None, None)
    facts.step_stats(frame)
    facts.idle_gaps(frame, facts.main_device(frame))
    facts.gap_owners(frame)
    clock.mark("facts: steps, idle gaps")
    efficiency(frame, peak)
    clock.mark("FLOPs, efficiency")
    memory.analyze(frame)
    clock.mark("memory")
    R.summarize(frame, peak)
    clock.mark("summary (the rest)")
    cfgs = D_.configs(None)
    for code, det in D_.REGISTRY.items():
        if R.missing_prerequisite(frame, det.requires) is None:
            det.detect(frame, cfgs[code])
            clock.mark(f"detector {code}")
    d = A.diagnose([frame], None, path=str(path), peak=peak)
    clock.mark("diagnose (cached facts)")
    render_json(d)
    clock.mark("JSON report")


def decode_parts(path: Path) -> None:
    from bottleneck_lab.trace import decode as D

    gc.collect()
    clock = Clock()
    data = D.read_bytes(path)
    top, _ = D._split_top(data, str(path))
    clock.mark("split: top-level object")
    raws = D._decode_raw_list(top.pop("traceEvents"))
    clock.mark("split: event slices")
    typed = build = 0.0
    columns = D._Columns()
    gc.disable()
    for start in range(0, len(raws), D.CHUNK_EVENTS):
        t0 = time.process_time()
        events, _ = D._decode_chunk(raws[start : start + D.CHUNK_EVENTS])
        t1 = time.process_time()
        columns.add(events)
        typed, build = typed + t1 - t0, build + time.process_time() - t1
    gc.enable()
    columns.finish()
    print(f"{'typed decode (cpu)':30s} {typed:7.2f} s")
    print(f"{'numpy columns (cpu)':30s} {build:7.2f} s")


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} TRACE.json")
    path = Path(sys.argv[1])
    stages(path)
    print()
    decode_parts(path)


if __name__ == "__main__":
    main()
