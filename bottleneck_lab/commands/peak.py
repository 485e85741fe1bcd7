"""`bottleneck-lab peak`: measure this GPU's empirical peaks and save them for later analyses.

A GEMM sweep per dtype (fp32 with TF32 off, tf32, bf16, fp16) over square sizes, keeping the
best rate, and a device-to-device copy for memory bandwidth (bytes read plus bytes written).
The result is saved as JSON keyed by device name; `analyze --peaks-file` then measures MFU
against it, and every MFU names it as its source.

This command imports torch (it runs kernels); analysing a trace never does.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

from ..flops.measured import DEFAULT_PATH, save
from . import UsageError

SIZES = (2048, 4096, 8192)


def _time_ms(torch, fn, repeats: int) -> float:
    for _ in range(3):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(repeats):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / repeats


def measure(sizes: tuple[int, ...] = SIZES, repeats: int = 10) -> dict[str, Any]:
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("no CUDA device: `peak` measures a GPU")
    dev = torch.cuda.get_device_properties(0)
    dtypes = {
        "fp32": torch.float32,
        "tf32": torch.float32,
        "bf16": torch.bfloat16,
        "fp16": torch.float16,
    }
    tflops: dict[str, float] = {}
    sweep: dict[str, dict[int, float]] = {}
    prev_tf32 = torch.backends.cuda.matmul.allow_tf32
    try:
        for name, dtype in dtypes.items():
            torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
            sweep[name] = {}
            for n in sizes:
                a = torch.randn(n, n, device="cuda", dtype=dtype)
                b = torch.randn(n, n, device="cuda", dtype=dtype)
                ms = _time_ms(torch, lambda a=a, b=b: a @ b, repeats)
                sweep[name][n] = 2 * n**3 / (ms / 1e3) / 1e12
            tflops[name] = max(sweep[name].values())
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev_tf32
    nbytes = 1 << 30
    src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = _time_ms(torch, lambda: dst.copy_(src), repeats)
    bw_gbps = 2 * nbytes / (ms / 1e3) / 1e9
    return {
        "device": dev.name,
        "measured_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "torch": torch.__version__,
        "tflops": {k: round(v, 2) for k, v in tflops.items()},
        "mem_bw_gbps": round(bw_gbps, 1),
        "sweep_tflops": {k: {str(n): round(v, 2) for n, v in s.items()} for k, s in sweep.items()},
        "method": f"best of square GEMMs {list(sizes)} (CUDA events, {repeats} repeats after 3 warm-ups); "
        "1 GiB device copy counting bytes read and written",
    }


def run_peak_command(args) -> int:
    try:
        result = measure()
    except RuntimeError as exc:
        raise UsageError(f"peak: {exc}") from None
    path = save(result, Path(args.out) if args.out else DEFAULT_PATH)
    print(f"{result['device']}  ({result['method']})")
    for k, v in result["tflops"].items():
        print(f"  {k:<5} {v:8.1f} TFLOP/s")
    print(f"  copy  {result['mem_bw_gbps']:8.1f} GB/s")
    print(f"saved to {path}; use `bottleneck-lab analyze TRACE --peaks-file {path}`")
    return 0
