"""Formatting shared by the renderers: durations, values, and readable kernel names.
Presentation only: nothing here decides what a number means."""

from __future__ import annotations

import re
from typing import Any

# Idle owners and busy time: one colour each, shared by the HTML timeline and the terminal.
OWNER_LABELS = {
    "busy": "GPU busy",
    "data_loading": "data loading",
    "sync_stall": "host-device sync",
    "launch_overhead": "launch overhead",
    "host_bound": "other host work",
    "small_batch": "small batch (host per-step cost)",
    "gpu_idle": "idle, no host cause",
    "memcpy": "blocking host-to-device copy",
    "recompilation": "torch.compile compiling",
    "cold_start": "one-off start-up",
    "unrecorded_work": "work from before the trace",
}
OWNER_COLOURS = {
    "busy": "#4e79a7",
    "data_loading": "#e15759",
    "sync_stall": "#f28e2b",
    "launch_overhead": "#edc948",
    "host_bound": "#b07aa1",
    "small_batch": "#76b7b2",
    "gpu_idle": "#bab0ac",
    "memcpy": "#59a14f",
    "recompilation": "#ff9da7",
    "cold_start": "#9c755f",
    "unrecorded_work": "#e8e8e8",
}
SEVERITY_COLOURS = {"high": "#c0392b", "medium": "#d68910", "low": "#2e86c1", "info": "#7f8c8d"}


def fmt_us(us: float | None) -> str:
    if us is None:
        return "n/a"
    if us >= 1e6:
        return f"{us / 1e6:.2f} s"
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.0f} µs"


def fmt_bytes(n: float | None) -> str:
    if n is None:
        return "n/a"
    for factor, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if abs(n) >= factor:
            return f"{n / factor:.2f} {unit}"
    return f"{n:.0f} B"


def fmt_flop(n: float | None) -> str:
    """FLOPs with a unit a reader can take in (`3.31 TFLOP`, not `3.31e+12`)."""
    if n is None:
        return "n/a"
    for factor, unit in ((1e15, "PFLOP"), (1e12, "TFLOP"), (1e9, "GFLOP"), (1e6, "MFLOP")):
        if abs(n) >= factor:
            return f"{n / factor:.3g} {unit}"
    return f"{n:,.0f} FLOP"


def fmt_pct(v: float) -> str:
    """A share that can be tiny (MFU of a recommender): never a bare `0.0%`."""
    if 0 < v < 0.001:
        return "<0.001%"
    return f"{v:.1f}%" if v >= 1 or v == 0 else f"{v:.2g}%"


def fmt_rate(v: float | None) -> str:
    """A FLOP or byte rate: one decimal when large, else 3 significant digits (0.0213)."""
    if v is None:
        return "-"
    return f"{v:,.1f}" if abs(v) >= 10 else f"{v:.3g}"


def fmt_metric(field: str, v: Any) -> str:
    """A Diagnosis summary field's value with its unit (the compare table's cells)."""
    if v is None:
        return "n/a"
    if field.endswith("_us"):
        return fmt_us(v)
    if field.endswith("_pct"):
        return fmt_pct(v)
    if field.endswith("_bytes"):
        return fmt_bytes(v)
    if field.startswith("flops"):
        return fmt_flop(v)
    return fmt_rate(v) if isinstance(v, float) else f"{v:,}"


def fmt_value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}".rstrip("0").rstrip(".") if abs(v) < 1e6 else f"{v:,.0f}"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {fmt_value(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "; ".join(fmt_value(x) for x in v)
    return str(v)


_SKIP_ARG = re.compile(
    r"^(?:-?\d+[a-z]*|true|false|void|bool|char|short|int|long|unsigned|signed|float\d?|double\d?|half\d?|"
    r"size_t|u?int\d+_t|array|BFloat16|Half|Float8\w*|TrivialOffsetCalculator|LoadWithoutCast|"
    r"StoreWithoutCast|OffsetCalculator)$"
)
_NOISE = re.compile(
    r"\(anonymous namespace\)::|\{lambda\([^{}]*\)#\d+\}|\bconst\b|\bvolatile\b|\bvoid\b"
)


def _split_top(s: str, sep: str = ",") -> list[str]:
    """Split at `sep` outside <>, () and []."""
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def _head(s: str) -> tuple[str, str | None]:
    """'ns::name<args>(params)...' -> ('name', 'args' or None)."""
    s = s.strip()
    depth, cut = 0, len(s)
    for i, ch in enumerate(s):
        if ch in "<(" and depth == 0:
            cut = i
            break
    name = s[:cut].strip().rstrip(":").split("::")[-1].strip().rstrip("*&").strip()
    if cut < len(s) and s[cut] == "<":
        depth = 0
        for j in range(cut, len(s)):
            depth += s[j] == "<"
            depth -= s[j] == ">"
            if depth == 0:
                return name, s[cut + 1 : j]
        return name, s[cut + 1 :]
    return name, None


def _informative_arg(args: str, depth: int) -> str | None:
    for arg in _split_top(args):
        arg = arg.strip()
        if not arg or arg.startswith("("):
            continue
        name, inner = _head(arg)
        if not name or _SKIP_ARG.match(name) or name.startswith("std"):
            continue
        if inner and depth > 1:
            deeper = _informative_arg(inner, depth - 1)
            if deeper:
                return f"{name}<{deeper}>"
        return name
    return None


def short_kernel(name: str, max_len: int = 60) -> str:
    """A readable kernel name: templated C++ signatures cut to their base name and the most
    telling template argument (`void at::native::vectorized_elementwise_kernel<4,
    at::native::AbsFunctor<float>, ...>(int, ...)` -> `vectorized_elementwise_kernel<AbsFunctor>`);
    plain names kept; anything longer than max_len shortened: the base name first (the argument
    tells kernels of one family apart), else in the middle with an ellipsis."""
    s = _NOISE.sub("", name).strip()
    if "<" in s or "(" in s or "::" in s:
        base, args = _head(s)
        arg = _informative_arg(args, 2) if args else None
        s = f"{base}<{arg}>" if arg else (base or s)
        room = max_len - len(arg or "") - 3  # what is left for the base beside "…<arg>"
        if arg and len(s) > max_len and room >= 12:
            return f"{base[:room]}…<{arg}>"
    if len(s) > max_len:
        keep = max_len - 1
        s = s[: keep - keep // 3] + "…" + s[len(s) - keep // 3 :]
    return s
