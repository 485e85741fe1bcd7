"""The diagnosis as Chrome trace events, to append to the original trace (`analyze --annotate`):
opened in Perfetto UI (or chrome://tracing) the trace shows, under a process named
"bottleneck-lab", one slice per idle gap named by its cause, each finding's evidence spans on a
track of its own, and counters for GPU busy % and memory.

No analysis happens here: gaps, busy % per window and the memory curve are the Diagnosis
summary's `timeline` and `memory_curve`, the spans are the findings' own evidence.

Perfetto's trace processor cannot be had offline (the PyPI `perfetto` wheel fetches its
`trace_processor_shell` binary at first use; npm and Debian bookworm have none: README, Reports,
lists what was tried), so tests/report/test_annotate.py reads the annotated file back with our
own loader and the JSON decoder and checks the added tracks and counters.
"""

from __future__ import annotations

from typing import Any

from ..diagnosis import Diagnosis
from .format import OWNER_LABELS

PID = 1_000_000_000  # far above OS pids and device ids: a process of its own in the viewer
TID_GAPS, TID_BUSY = 1, 2  # tracks; findings get FINDING_TID0 + their rank
FINDING_TID0 = 10
CAT = "bottleneck-lab"
DURATION_KEYS = ("idle_us", "blocked_us", "dur_us", "duration_us", "copy_us", "exposed_us")


def _meta(name: str, args: dict, tid: int | None = None) -> dict:
    ev = {"ph": "M", "name": name, "pid": PID, "args": args}
    if tid is not None:
        ev["tid"] = tid
    return ev


def _evidence_spans(evidence: dict[str, Any]) -> list[tuple[str, float, float | None, dict]]:
    """(label, ts, dur or None, args) for every evidence item that says where it happened."""
    out = []
    for key, value in evidence.items():
        items = value if isinstance(value, list) else [value]
        for item in items:
            if not isinstance(item, dict):
                continue
            where = item if isinstance(item.get("ts"), (int, float)) else item.get("first")
            if not isinstance(where, dict) or not isinstance(where.get("ts"), (int, float)):
                continue
            dur = next(
                (item[k] for k in DURATION_KEYS if isinstance(item.get(k), (int, float))), None
            )
            args = {
                k: v
                for k, v in item.items()
                if isinstance(v, (str, int, float, bool)) and k not in ("ts",)
            }
            out.append((key, float(where["ts"]), float(dur) if dur else None, args))
    return out


def annotation_events(d: Diagnosis) -> list[dict]:
    x = d.summary.extra
    events = [
        _meta("process_name", {"name": "bottleneck-lab"}),
        _meta("process_sort_index", {"sort_index": -1}),
        _meta("thread_name", {"name": "GPU idle gaps, by cause"}, TID_GAPS),
        _meta("thread_sort_index", {"sort_index": 0}, TID_GAPS),
    ]
    tl = x.get("timeline")
    if tl:
        origin, owners = float(tl["origin_ts"]), tl["owners"]
        for st in tl["steps"]:
            t0 = origin + st["start_us"]
            for start, dur, owner in st["gaps"]:
                cause = owners[owner]
                events.append(
                    {
                        "ph": "X",
                        "cat": CAT,
                        "name": f"idle: {OWNER_LABELS.get(cause, cause)}",
                        "pid": PID,
                        "tid": TID_GAPS,
                        "ts": round(t0 + start, 3),
                        "dur": dur,
                        "args": {"cause": cause, "step": st["step"], "idle_us": dur},
                    }
                )
            windows = st["busy_pct_windows"]
            width = st["dur_us"] / max(len(windows), 1)
            for i, pct in enumerate(windows):
                if pct is not None:
                    events.append(
                        {
                            "ph": "C",
                            "cat": CAT,
                            "name": "GPU busy %",
                            "pid": PID,
                            "ts": round(t0 + i * width, 3),
                            "args": {"busy %": pct},
                        }
                    )
        last = tl["steps"][-1] if tl["steps"] else None
        if last:  # the counter drops to nothing after the last analysed step
            events.append(
                {
                    "ph": "C",
                    "cat": CAT,
                    "name": "GPU busy %",
                    "pid": PID,
                    "ts": round(origin + last["start_us"] + last["dur_us"], 3),
                    "args": {"busy %": 0},
                }
            )
    for rank, f in enumerate(d.findings, 1):
        tid = FINDING_TID0 + rank
        events += [
            _meta("thread_name", {"name": f"finding {rank}: {f.code} ({f.severity})"}, tid),
            _meta("thread_sort_index", {"sort_index": tid}, tid),
        ]
        for key, ts, dur, args in _evidence_spans(f.evidence):
            ev = {
                "cat": CAT,
                "name": f"{f.code}: {key}",
                "pid": PID,
                "tid": tid,
                "ts": round(ts, 3),
                "args": {**args, "finding": f.title, "fix": f.fix},
            }
            ev.update({"ph": "X", "dur": dur} if dur else {"ph": "i", "s": "t"})
            events.append(ev)
    mc = x.get("memory_curve")
    if mc:
        origin = float(mc["origin_ts"])
        for t_ms, alloc, reserved in mc["points"]:
            events.append(
                {
                    "ph": "C",
                    "cat": CAT,
                    "name": f"memory {mc['device']} (MiB)",
                    "pid": PID,
                    "ts": round(origin + t_ms * 1000.0, 3),
                    "args": {
                        "allocated": round(alloc / 2**20, 3),
                        "reserved": round(reserved / 2**20, 3),
                    },
                }
            )
    return events
