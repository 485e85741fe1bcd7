"""Write a trace back out with extra events appended (`analyze --annotate`).

The original events are copied byte for byte (no decode and re-encode of what may be gigabytes);
only top-level JSON that profilers write wrongly (NaN, Infinity, bad escapes) comes out repaired,
exactly as the loader reads it. Gzip output when the name ends in .gz.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import msgspec

from .decode import _split_top, read_bytes
from .errors import TraceError


def write_with_events(src: str | Path, dst: str | Path, events: list[dict]) -> int:
    """Copy the Chrome trace `src` to `dst` with `events` appended to its traceEvents (a bare
    event array stays an array). Returns the number of bytes written. Raises TraceError for an
    unreadable `src` and OSError for an unwritable `dst`."""
    src, dst = Path(src), Path(dst)
    data = read_bytes(src)
    top, _ = _split_top(data, str(src))
    if "traceEvents" not in top:
        raise TraceError(src, "JSON object has no traceEvents; not a Kineto trace")
    bare = bytes(data[:64]).lstrip()[:1] == b"["  # the Chrome trace array format
    body = bytes(top.pop("traceEvents")).strip()
    if body[:1] != b"[" or body[-1:] != b"]":
        raise TraceError(src, "traceEvents is not a list")
    inner = body[1:-1].strip()
    added = msgspec.json.encode(events)[1:-1]
    merged = b"[" + inner + (b",\n" if inner and added else b"") + added + b"]"
    if bare:
        out = merged
    else:
        fields = [msgspec.json.encode(k) + b":" + bytes(v) for k, v in top.items()]
        out = b"{" + b",\n".join(fields + [b'"traceEvents":' + merged]) + b"}\n"
    if dst.name.endswith(".gz"):
        out = gzip.compress(out, compresslevel=6)
    dst.write_bytes(out)
    return len(out)
