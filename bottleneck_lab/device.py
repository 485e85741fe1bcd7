"""Which GPU of a trace the analysis describes, and its SM count (from deviceProperties)."""

from __future__ import annotations

from .trace import TraceFrame


def main_device(frame: TraceFrame) -> int | None:
    return frame.devices[0] if frame.devices else None


def sm_count(frame: TraceFrame) -> int | None:
    dev = main_device(frame)
    props = frame.device_props(dev) if dev is not None else None
    n = (props or {}).get("numSms")
    return int(n) if n else None
