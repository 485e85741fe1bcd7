"""Every finding on every shipped and external trace, to see what a rule change moves.

    python benchmarks/findings_snapshot.py before.json     # on the old code (git stash)
    python benchmarks/findings_snapshot.py after.json      # on the new code
    python benchmarks/findings_snapshot.py --diff before.json after.json

Writes {trace path: [[code, severity, share_pct], ...]} (or the one-line error a trace gives)
for each trace under traces/ and ../shared/external-traces (sidecar .meta.json files left out);
--diff prints the traces whose findings differ, before and after.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bottleneck_lab.analyze import diagnose  # noqa: E402
from bottleneck_lab.trace import load_trace  # noqa: E402

SOURCES = (ROOT / "traces", ROOT.parent / "shared" / "external-traces")


def traces() -> list[Path]:
    found = []
    for src in SOURCES:
        for pattern in ("*.json", "*.json.gz"):
            found += [p for p in src.rglob(pattern) if not p.name.endswith(".meta.json")]
    return sorted(found)


def snapshot() -> dict[str, list | str]:
    out: dict[str, list | str] = {}
    for path in traces():
        key = str(path.relative_to(ROOT.parent))
        try:
            d = diagnose(load_trace(path), path=str(path))
        except Exception as exc:  # a trace the analyzer refuses is recorded, not fatal
            out[key] = f"{type(exc).__name__}: {exc}"[:200]
            continue
        out[key] = [[f.code, f.severity, f.share_pct] for f in d.findings]
    return out


def main() -> int:
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "--diff":
        before, after = (json.loads(Path(a).read_text()) for a in args[1:])
        changed = [k for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]
        for k in changed:
            print(f"{k}\n  before {before.get(k)}\n  after  {after.get(k)}")
        print(f"{len(changed)} of {len(set(before) | set(after))} traces changed")
        return 0
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    snap = snapshot()
    Path(args[0]).write_text(json.dumps(snap, indent=0))
    print(f"{len(snap)} traces")
    return 0


if __name__ == "__main__":
    sys.exit(main())
