"""JSON per the `bottleneck-lab/diagnosis/1` schema (DESIGN.md)."""

from __future__ import annotations

import math

import msgspec

from ..diagnosis import Diagnosis


def _clean(v):
    """JSON has no NaN/Infinity and no numpy scalars: make every value plain."""
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if hasattr(v, "item") and callable(v.item):  # numpy scalar
        return _clean(v.item())
    return v


def render_plain(doc: dict) -> str:
    return msgspec.json.format(msgspec.json.encode(_clean(doc)), indent=2).decode() + "\n"


def render_json(diagnosis: Diagnosis) -> str:
    return render_plain(diagnosis.to_dict())
