"""Tile a Kineto trace N times along time, to make a large but realistic benchmark input.

Each copy is shifted by the trace's span (plus a small gap) and its correlation, External id and
flow ids are offset so that launch links stay unique, the way a longer capture would look.

    python benchmarks/tile_trace.py SRC.json.gz OUT.json --times 10
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections.abc import Iterator
from pathlib import Path

ID_ARGS = ("correlation", "External id")


def _read(path: Path) -> dict:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        return json.loads(fh.read())


def tiled_events(trace: dict, times: int) -> Iterator[dict]:
    """The trace's events, `times` copies laid end to end (metadata events once)."""
    events = trace["traceEvents"]
    timed = [e for e in events if isinstance(e.get("ts"), (int, float))]
    start = min(e["ts"] for e in timed)
    end = max(e["ts"] + (e.get("dur") or 0) for e in timed)
    shift_us = (end - start) + 1000
    id_span = 1 + max(
        [int(e.get("args", {}).get(k, 0) or 0) for e in events for k in ID_ARGS]
        + [int(e["id"]) for e in events if isinstance(e.get("id"), int)]
    )
    yield from (e for e in events if e.get("ph") == "M")
    for k in range(times):
        for e in events:
            if e.get("ph") == "M":
                continue
            c = dict(e)
            if isinstance(c.get("ts"), (int, float)):
                c["ts"] = c["ts"] + k * shift_us
            if isinstance(c.get("id"), int):
                c["id"] = c["id"] + k * id_span
            args = c.get("args")
            if args and any(key in args for key in ID_ARGS):
                args = dict(args)
                for key in ID_ARGS:
                    if isinstance(args.get(key), int) and args[key] >= 0:
                        args[key] = args[key] + k * id_span
                c["args"] = args
            if k and c.get("name", "").startswith("ProfilerStep#"):
                step = int(c["name"].split("#")[1])
                c["name"] = f"ProfilerStep#{step + k * 1000}"
            yield c


def write_tiled(trace: dict, times: int, out: Path) -> int:
    """Write the tiled trace as json.dump would, one event at a time, so a 20x tiling does not
    hold millions of dicts. Returns the number of events written."""
    n = 0
    with open(out, "w") as fh:
        fh.write("{")
        for i, (key, value) in enumerate(trace.items()):
            fh.write((", " if i else "") + json.dumps(key) + ": ")
            if key != "traceEvents":
                fh.write(json.dumps(value))
                continue
            fh.write("[")
            for e in tiled_events(trace, times):
                fh.write((", " if n else "") + json.dumps(e))
                n += 1
            fh.write("]")
        fh.write("}")
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--times", type=int, default=10)
    a = ap.parse_args()
    a.out.parent.mkdir(parents=True, exist_ok=True)
    n = write_tiled(_read(a.src), a.times, a.out)
    print(f"{a.out}: {n} events, {a.out.stat().st_size / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
