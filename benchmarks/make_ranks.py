"""Write a synthetic many-rank job directory (rank0.json.gz ... rankN-1.json.gz) built from the
real two-rank ddp_slow_rank/bad capture (2 H200s, DDP ResNet-50; rank 1 sleeps 30 ms per step).

    python benchmarks/make_ranks.py --ranks 64 --out /tmp/bl_ranks64 [--slow-rank 1] [--skewed-rank 2]

Every rank is a copy of a real rank trace with its own `distributedInfo.rank`:
- the slow rank is the real rank 1 (its host sleeps 30 ms per step; the others wait for it);
- every other rank is the real rank 0 (it waits in NCCL for the slow rank), except
- the skewed rank: rank 0 with its clock offset by 5 s and every time and duration stretched
  by --stretch (default 1.2), as a rank on a slower node whose steps all take longer.

The directory goes to /tmp (or --out), never into the repository. Nothing here imports torch.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "traces" / "zoo" / "ddp_slow_rank" / "bad"
PLACEHOLDER = "__RANK__"


def _read(path: Path) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def _template(trace: dict, world: int) -> bytes:
    """The trace serialised once, with a placeholder where each copy's rank goes."""
    info = trace.setdefault("distributedInfo", {})
    info["rank"], info["world_size"] = PLACEHOLDER, world
    return json.dumps(trace, separators=(",", ":")).encode()


def _stretched(trace: dict, factor: float, offset_us: float) -> dict:
    """Every event's time relative to the first, and its duration, times `factor`; then offset."""
    events = trace["traceEvents"]
    t0 = min(float(e["ts"]) for e in events if isinstance(e.get("ts"), (int, float)))
    for e in events:
        if isinstance(e.get("ts"), (int, float)):
            e["ts"] = t0 + offset_us + (float(e["ts"]) - t0) * factor
        if isinstance(e.get("dur"), (int, float)):
            e["dur"] = float(e["dur"]) * factor
    return trace


def make_ranks(
    out: Path, ranks: int, slow_rank: int = 1, skewed_rank: int | None = 2, stretch: float = 1.2
) -> Path:
    if not 0 <= slow_rank < ranks or (skewed_rank is not None and not 0 <= skewed_rank < ranks):
        raise ValueError("--slow-rank and --skewed-rank must be below --ranks")
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("rank*.json.gz"):
        old.unlink()
    waiting = _template(_read(SOURCE / "rank0.json.gz"), ranks)
    slow = _template(_read(SOURCE / "rank1.json.gz"), ranks)
    skewed = (
        _template(_stretched(_read(SOURCE / "rank0.json.gz"), stretch, 5e6), ranks)
        if skewed_rank is not None
        else None
    )
    for r in range(ranks):
        body = slow if r == slow_rank else skewed if r == skewed_rank else waiting
        data = body.replace(f'"{PLACEHOLDER}"'.encode(), str(r).encode(), 1)
        with gzip.open(out / f"rank{r}.json.gz", "wb", compresslevel=1) as fh:
            fh.write(data)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", type=int, default=64)
    p.add_argument("--out", type=Path, default=None, help="default /tmp/bl_ranks<N>")
    p.add_argument("--slow-rank", type=int, default=1)
    p.add_argument("--skewed-rank", type=int, default=2, help="-1 for none")
    p.add_argument("--stretch", type=float, default=1.2)
    a = p.parse_args(argv)
    out = a.out or Path(f"/tmp/bl_ranks{a.ranks}")
    if out.resolve().is_relative_to(REPO):
        p.error(f"{out}: write the synthetic job outside the repository (e.g. /tmp)")
    skewed = None if a.skewed_rank < 0 else a.skewed_rank
    try:
        make_ranks(out, a.ranks, a.slow_rank, skewed, a.stretch)
    except ValueError as exc:
        p.error(str(exc))
    sys.stdout.write(f"{out}: {a.ranks} ranks (slow {a.slow_rank}, skewed {skewed})\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
