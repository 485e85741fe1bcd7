"""The share of the peak fused attention reaches, by key length, from the shipped traces.

    python benchmarks/fused_attention_share.py

For every first capture under traces/zoo and traces/h100 that trains with fused SDPA in BF16 or
FP16 (forward and backward attention ops), the attention's FLOPs (bottleneck_lab.op_flops) over
the GPU time of its kernels, as a share of the device's dense peak for that dtype, against the
key length. Prints each run, then the least-squares fit share = scale * keys ** exponent (in
logs) that detectors/eager_attention.py prices a fused kernel with, beside the constants it
holds. The holdout scenarios (benchmarks/zoo/labels.py) are left out: they calibrate nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks" / "zoo")]

import labels  # noqa: E402

from bottleneck_lab.detectors import eager_attention  # noqa: E402
from bottleneck_lab.efficiency import device_peak  # noqa: E402
from bottleneck_lab.flops.attention import _ATTENTION_SPECS  # noqa: E402
from bottleneck_lab.op_flops import compute_ops, matrix_owner  # noqa: E402
from bottleneck_lab.trace.load import load_trace  # noqa: E402


def key_length(name: str, dims) -> int | None:
    """The key length of a forward attention op from its recorded k input."""
    spec = _ATTENTION_SPECS.get(name.removeprefix("aten::"))
    if spec is None or spec.backward or not isinstance(dims, list) or len(dims) < 2:
        return None
    k = dims[1]
    if not isinstance(k, list) or len(k) != 4:
        return None
    return int(k[-2] if spec.layout == "bhsd" else k[1])


def measure(path: Path) -> tuple[int, float] | None:
    """(key length, share of peak) of a trace's fused training attention, None if it has none."""
    frame = load_trace(path)[0]
    ops = compute_ops(frame)
    att = ops.loc[(ops["category"] == "attention").to_numpy()]
    if not len(att) or not att["dtype"].isin(["bf16", "fp16"]).all():
        return None
    names = frame.cpu_ops["name"].astype(str).to_numpy()[att["row"].to_numpy()]
    if not any(n.endswith("backward") for n in names):
        return None  # inference: a forward-only kernel reaches more
    dims = frame.cpu_ops["input_dims"].to_numpy()[att["row"].to_numpy()]
    keys = [k for n, d in zip(names, dims) if (k := key_length(n, d))]
    peak = device_peak(frame)
    tflops = peak.peak_for(str(att["dtype"].iat[0])) if peak else None
    if not keys or not tflops:
        return None
    g = frame.gpu_ops
    kernel = (g["kind"] == "kernel").to_numpy() & (g["step"] >= 0).to_numpy()
    us = float(g["dur"].to_numpy()[kernel & np.isin(matrix_owner(frame), att["row"])].sum())
    if us <= 0:
        return None
    share = float(att["flops"].sum()) / (us * 1e-6) / (tflops * 1e12)
    return int(np.median(keys)), share


def main() -> int:
    skip = labels.holdout_names()
    rows = []
    for path in sorted((ROOT / "traces" / "zoo").glob("*/*.json.gz")) + sorted(
        (ROOT / "traces" / "h100").glob("*.json.gz")
    ):
        if path.parent.name in skip:
            continue
        got = measure(path)
        if got is not None:
            rows.append((str(path.relative_to(ROOT)), *got))
    print(f"{'trace':60s} {'keys':>6s} {'share of peak':>14s}")
    for name, keys, share in rows:
        print(f"{name:60s} {keys:6d} {100 * share:13.1f}%")
    x = np.log([r[1] for r in rows])
    y = np.log([r[2] for r in rows])
    exponent, log_scale = np.polyfit(x, y, 1)
    print(
        f"\n{len(rows)} runs: share = {np.exp(log_scale):.5f} * keys ** {exponent:.3f} "
        f"(residual sd {np.std(y - (log_scale + exponent * x)):.2f} in logs); highest "
        f"{100 * max(r[2] for r in rows):.0f}%"
    )
    print(
        f"eager_attention holds {eager_attention.FUSED_PEAK_SHARE_SCALE} * keys ** "
        f"{eager_attention.FUSED_PEAK_SHARE_EXPONENT}, at most "
        f"{eager_attention.FUSED_PEAK_SHARE_MAX}"
    )
    for keys in (64, 197, 512, 1024, 4096):
        print(
            f"  {keys:5d} keys: fit {100 * np.exp(log_scale) * keys**exponent:5.1f}%, held "
            f"{100 * eager_attention.fused_peak_share(keys):5.1f}%"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
