"""Which JSON decoder to build the loader on: orjson vs msgspec, on every external trace.

Each decoder runs in its own process per file (so peak RSS is its own): read the (gunzipped)
bytes, decode, touch the event count. "msgspec typed" is how the loader uses msgspec: structs
that keep only the fields the analysis reads. orjson and plain msgspec build every dict.

    python benchmarks/decoders.py [FILES...]
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTERNAL = ROOT.parent / "shared" / "external-traces"

CHILD = r"""
import gzip, sys, time, resource
import msgspec, orjson
from bottleneck_lab.trace.decode import _columns, _decode_raw_list, _split_top
mode, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
if data[:2] == b"\x1f\x8b":
    data = gzip.decompress(data)
t = time.perf_counter()
if mode == "orjson":
    n = len(orjson.loads(data)["traceEvents"])
elif mode == "msgspec":
    n = len(msgspec.json.decode(data)["traceEvents"])
else:
    top, _ = _split_top(data, path)
    tables, names, dropped = _columns(_decode_raw_list(top["traceEvents"]))
    n = sum(len(t["ts"]) for t in tables.values())
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def measure(mode: str, path: Path) -> tuple[float, float] | None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(path)], capture_output=True, text=True, env=env
    )
    if out.returncode != 0:
        return None
    s, mb = out.stdout.split()
    return float(s), float(mb)


def main() -> None:
    files = [Path(p) for p in sys.argv[1:]] or sorted(
        f for f in EXTERNAL.glob("*/*.json.gz") if "_et." not in f.name
    )
    modes = ("orjson", "msgspec", "msgspec typed")
    print("| trace | " + " | ".join(f"{m} s | {m} MB" for m in modes) + " |")
    print("|---|" + "---:|" * (2 * len(modes)))
    totals = {m: 0.0 for m in modes}
    for f in files:
        cells = []
        for m in modes:
            r = measure(m.replace("msgspec typed", "typed"), f)
            if r is None:
                cells += ["failed", ""]
                continue
            totals[m] += r[0]
            cells += [f"{r[0]:.3f}", f"{r[1]:.0f}"]
        print(f"| {f.parent.name}/{f.name[:30]} | " + " | ".join(cells) + " |")
    print("| total decode s | " + " | ".join(f"{totals[m]:.2f} | " for m in modes) + "|")


if __name__ == "__main__":
    main()
