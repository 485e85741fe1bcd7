"""Tiny, valid Kineto-like traces written as Python dicts: for tests and detector examples.

A `TraceBuilder` collects events with times in microseconds and writes them the way the PyTorch
profiler does: complete ("X") events with `cat`/`name`/`pid`/`tid`/`ts`/`dur`/`args`, flow
events linking each launch to its GPU work, process/thread metadata, and the top-level
`deviceProperties` and `distributedInfo`. Typical use::

    b = TraceBuilder()
    b.step(1, ts=0, dur=100)
    corr = b.op_with_kernel("aten::mm", ts=10, dur=20, kernel="gemm", kernel_ts=40, kernel_dur=50)
    path = b.write(tmp_path / "trace.json.gz")   # or b.to_dict() / b.dumps()

Conventions:
- The CPU side runs in process `pid`, thread `tid` (override per event with `tid=`). GPU work
  runs on `device`/`stream`, written as `pid`/`tid` of the GPU event and in its args.
- `external_id` and `correlation` default to fresh numbers (external ids count from 1,
  correlations from 1001, so the two are never confused); pass `None` to leave one out.
- `torch_version=1` writes the torch 1.x category names (Operator, Runtime, Kernel, Memcpy,
  Memset) and ProfilerStep as an op; `int_us=True` rounds every time to whole microseconds as
  old traces do; `rocm=True` writes what ROCm traces write (hip* launches, string args).
- Methods return the id that later events refer to (an External id or a correlation).
"""

from __future__ import annotations

import gzip
import itertools
import json
import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Category of each event role, by torch major version.
CATEGORIES = {
    2: {
        "cpu_op": "cpu_op",
        "runtime": "cuda_runtime",
        "driver": "cuda_driver",
        "kernel": "kernel",
        "memcpy": "gpu_memcpy",
        "memset": "gpu_memset",
        "annotation": "user_annotation",
        "flow": "ac2g",
        "memory": "cpu_instant_event",
    },
    1: {
        "cpu_op": "Operator",
        "runtime": "Runtime",
        "driver": "Runtime",
        "kernel": "Kernel",
        "memcpy": "Memcpy",
        "memset": "Memset",
        "annotation": "user_annotation",
        "flow": "async_cpu_to_gpu",
        "memory": "cpu_instant_event",
    },
}

# Every launch API the loader must link (DESIGN.md), and the GPU work each one starts.
KERNEL_LAUNCHES = (
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cuLaunchKernel",
    "cuLaunchKernelEx",
    "cudaGraphLaunch",
    "hipLaunchKernel",
    "hipExtModuleLaunchKernel",
)
COPY_LAUNCH = "cudaMemcpyAsync"
SET_LAUNCH = "cudaMemsetAsync"
DRIVER_CALLS = ("cuLaunchKernel", "cuLaunchKernelEx")  # category cuda_driver in torch 2.x

DATALOADER_NEXT = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"

AUTO: Any = object()  # "make up a fresh id"; distinct from None, which means "leave it out"


def device_properties(
    device: int = 0,
    name: str = "NVIDIA A100-SXM4-80GB",
    num_sms: int = 108,
    memory_bytes: int = 85_031_714_816,
    compute: tuple[int, int] = (8, 0),
) -> dict:
    """One `deviceProperties` entry as Kineto writes it."""
    return {
        "id": device,
        "name": name,
        "totalGlobalMem": memory_bytes,
        "computeMajor": compute[0],
        "computeMinor": compute[1],
        "maxThreadsPerBlock": 1024,
        "maxThreadsPerMultiprocessor": 2048,
        "regsPerBlock": 65536,
        "warpSize": 32,
        "sharedMemPerBlock": 49152,
        "numSms": num_sms,
        "regsPerMultiprocessor": 65536,
        "sharedMemPerBlockOptin": 232448,
        "sharedMemPerMultiprocessor": 233472,
    }


@dataclass
class TraceBuilder:
    """Collects events (append order is kept) and writes them as one rank's Kineto trace."""

    torch_version: int = 2
    int_us: bool = False
    step_as_cpu_op: bool | None = None  # None: as torch_version says (1.x wrote steps as ops)
    rocm: bool = False
    pid: int = 4242
    tid: int = 4242
    device: int = 0
    stream: int = 7
    rank: int | None = None  # None: no distributedInfo
    world_size: int = 1
    gpus: list[dict] | None = field(default=None)  # None: one default device; []: none written
    flows: bool = True
    base_us: float = 0.0  # added to every timestamp on output (real traces start near 1e12)
    events: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.cat = CATEGORIES[self.torch_version]
        if self.step_as_cpu_op is None:
            self.step_as_cpu_op = self.torch_version == 1
        if self.gpus is None:
            self.gpus = [
                device_properties(
                    self.device,
                    name="AMD Instinct MI250X" if self.rocm else "NVIDIA A100-SXM4-80GB",
                )
            ]
        self._external_ids = itertools.count(1)
        self._correlations = itertools.count(1001)

    # -- low level -------------------------------------------------------------------------

    def event(
        self,
        cat: str,
        name: str,
        ts: float,
        dur: float | None,
        *,
        pid: Any = None,
        tid: Any = None,
        args: dict | None = None,
        ph: str = "X",
    ) -> dict:
        """Append one raw event (times in µs, relative to base_us) and return it for tweaking."""
        ev: dict[str, Any] = {
            "ph": ph,
            "cat": cat,
            "name": name,
            "pid": self.pid if pid is None else pid,
            "tid": self.tid if tid is None else tid,
            "ts": ts,
        }
        if dur is not None:
            ev["dur"] = dur
        if args is not None:
            ev["args"] = args
        self.events.append(ev)
        return ev

    def _id(self, value: Any, counter: itertools.count) -> int | None:
        return next(counter) if value is AUTO else value

    def _gpu_args(
        self,
        correlation: int | None,
        external_id: int | None,
        device: int,
        stream: int,
        extra: dict,
    ) -> dict:
        args: dict[str, Any] = {}
        if external_id is not None:
            args["External id"] = external_id
        args.update({"device": device, "stream": stream})
        if correlation is not None:
            args["correlation"] = correlation
        args.update(extra)
        return args

    def _gpu_event(
        self,
        role: str,
        name: str,
        ts: float,
        dur: float,
        correlation: int | None,
        external_id: int | None,
        device: int | None,
        stream: int | None,
        extra: dict,
    ) -> dict:
        device = self.device if device is None else device
        stream = self.stream if stream is None else stream
        ev = self.event(
            self.cat[role],
            name,
            ts,
            dur,
            pid=device,
            tid=stream,
            args=self._gpu_args(correlation, external_id, device, stream, extra),
        )
        if self.flows and correlation is not None:
            self.event(self.cat["flow"], self.cat["flow"], ts, None, pid=device, tid=stream, ph="f")
            self.events[-1].update(id=correlation, bp="e")
        return ev

    # -- CPU side ----------------------------------------------------------------------------

    def cpu_op(
        self,
        name: str,
        ts: float,
        dur: float,
        *,
        tid: int | None = None,
        external_id: Any = AUTO,
        args: dict | None = None,
    ) -> int | None:
        """An operator (`aten::mm`, ...). Returns its External id."""
        external_id = self._id(external_id, self._external_ids)
        a = {} if external_id is None else {"External id": external_id}
        a.update(args or {})
        self.event(self.cat["cpu_op"], name, ts, dur, tid=tid, args=a)
        return external_id

    def annotation(
        self, name: str, ts: float, dur: float, *, tid: int | None = None, as_cpu_op: bool = False
    ) -> int:
        """A record_function range (user_annotation, or cpu_op as torch 1.x wrote some)."""
        external_id = next(self._external_ids)
        cat = self.cat["cpu_op"] if as_cpu_op else self.cat["annotation"]
        self.event(cat, name, ts, dur, tid=tid, args={"External id": external_id})
        return external_id

    def step(self, n: int, ts: float, dur: float) -> int:
        """A `ProfilerStep#n` span."""
        return self.annotation(f"ProfilerStep#{n}", ts, dur, as_cpu_op=bool(self.step_as_cpu_op))

    def dataloader(self, ts: float, dur: float) -> int:
        """A DataLoader `__next__` span (fetching one batch)."""
        return self.annotation(DATALOADER_NEXT, ts, dur)

    def runtime(
        self,
        name: str,
        ts: float,
        dur: float = 4.0,
        *,
        tid: int | None = None,
        external_id: int | None = None,
        correlation: Any = AUTO,
        args: dict | None = None,
    ) -> int | None:
        """A CUDA/HIP runtime or driver call (a launch, a sync, ...). Returns its correlation."""
        correlation = self._id(correlation, self._correlations)
        role = "driver" if name in DRIVER_CALLS else "runtime"
        a: dict[str, Any] = {}
        if external_id is not None:
            a["External id"] = external_id
        a["cbid"] = 211
        if correlation is not None:
            a["correlation"] = correlation
        if self.rocm:
            a.update({"cid": 107, "stream": "0x0", "grid": [1, 1, 1], "block": [256, 1, 1]})
        a.update(args or {})
        self.event(self.cat[role], name, ts, dur, tid=tid, args=a)
        if self.flows and correlation is not None:
            self.event(self.cat["flow"], self.cat["flow"], ts, None, tid=tid, ph="s")
            self.events[-1]["id"] = correlation
        return correlation

    def memory(
        self,
        ts: float,
        nbytes: int,
        *,
        total_allocated: int,
        total_reserved: int,
        addr: int = 0x7F0000000000,
        device: int | None = None,
        device_type: int = 1,
    ) -> None:
        """A `[memory]` instant event (profile_memory=True): an allocation (+) or free (-)."""
        self.event(
            self.cat["memory"],
            "[memory]",
            ts,
            None,
            ph="i",
            args={
                "Total Reserved": total_reserved,
                "Total Allocated": total_allocated,
                "Bytes": nbytes,
                "Addr": addr,
                "Device Id": self.device if device is None else device,
                "Device Type": device_type,
            },
        )
        self.events[-1]["s"] = "t"

    # -- GPU side ----------------------------------------------------------------------------

    def kernel(
        self,
        name: str,
        ts: float,
        dur: float,
        *,
        correlation: int | None,
        external_id: int | None = None,
        device: int | None = None,
        stream: int | None = None,
        grid: tuple = (1, 1, 1),
        block: tuple = (128, 1, 1),
        args: dict | None = None,
    ) -> dict:
        """A GPU kernel run by the launch with this correlation."""
        extra: dict[str, Any] = (
            {"kind": "Dispatch Kernel"}
            if self.rocm
            else {
                "registers per thread": 32,
                "shared memory": 0,
                "grid": list(grid),
                "block": list(block),
                "est. achieved occupancy %": 50,
            }
        )
        extra.update(args or {})
        return self._gpu_event(
            "kernel", name, ts, dur, correlation, external_id, device, stream, extra
        )

    def memcpy(
        self,
        ts: float,
        dur: float,
        *,
        correlation: int | None,
        nbytes: int = 4096,
        direction: str = "HtoD",
        src: str = "Pageable",
        dst: str = "Device",
        external_id: int | None = None,
        device: int | None = None,
        stream: int | None = None,
    ) -> dict:
        """A copy, named as CUPTI names it: `Memcpy HtoD (Pageable -> Device)`."""
        return self._gpu_event(
            "memcpy",
            f"Memcpy {direction} ({src} -> {dst})",
            ts,
            dur,
            correlation,
            external_id,
            device,
            stream,
            {"bytes": nbytes},
        )

    def memset(
        self,
        ts: float,
        dur: float,
        *,
        correlation: int | None,
        nbytes: int = 4096,
        external_id: int | None = None,
        device: int | None = None,
        stream: int | None = None,
    ) -> dict:
        """A memset on the device (`Memset (Device)`)."""
        return self._gpu_event(
            "memset",
            "Memset (Device)",
            ts,
            dur,
            correlation,
            external_id,
            device,
            stream,
            {"bytes": nbytes},
        )

    # -- common shapes -----------------------------------------------------------------------

    def op_with_kernel(
        self,
        name: str,
        ts: float,
        dur: float,
        *,
        kernel: str,
        kernel_ts: float,
        kernel_dur: float,
        api: str | None = None,
        tid: int | None = None,
        op_args: dict | None = None,
        **kernel_kw: Any,
    ) -> int | None:
        """An op whose middle half launches one kernel; returns the launch's correlation.
        `op_args` go to the op (`{"Input Dims": ..., "Input type": ...}`), kernel_kw to the kernel."""
        ext = self.cpu_op(name, ts, dur, tid=tid, args=op_args)
        api = api or ("hipLaunchKernel" if self.rocm else "cudaLaunchKernel")
        corr = self.runtime(api, ts + dur / 4, dur / 2, tid=tid, external_id=ext)
        self.kernel(kernel, kernel_ts, kernel_dur, correlation=corr, external_id=ext, **kernel_kw)
        return corr

    # -- output ------------------------------------------------------------------------------

    def _time(self, value: Any) -> Any:
        if not isinstance(value, (int, float)) or not math.isfinite(value):
            return value  # NaN/Infinity and deliberately odd values are written as given
        value = value + self.base_us
        return int(round(value)) if self.int_us else value

    def _metadata(self) -> list[dict]:
        meta = [
            {
                "name": "process_name",
                "ph": "M",
                "ts": self._time(0),
                "pid": self.pid,
                "tid": 0,
                "args": {"name": "python3"},
            }
        ]
        for gpu in self.gpus or []:
            meta.append(
                {
                    "name": "process_name",
                    "ph": "M",
                    "ts": self._time(0),
                    "pid": gpu["id"],
                    "tid": 0,
                    "args": {"name": "python3"},
                }
            )
        return meta

    def to_dict(self) -> dict:
        events = []
        for ev in self.events:
            ev = dict(ev, ts=self._time(ev["ts"]))
            if self.int_us and isinstance(ev.get("dur"), float) and math.isfinite(ev["dur"]):
                ev["dur"] = int(round(ev["dur"]))
            events.append(ev)
        trace: dict[str, Any] = {"schemaVersion": 1}
        if self.gpus:
            trace["deviceProperties"] = self.gpus
        if self.rank is not None:
            trace["distributedInfo"] = {
                "backend": "nccl",
                "rank": self.rank,
                "world_size": self.world_size,
            }
        trace["record_shapes"] = 1
        trace["traceEvents"] = self._metadata() + events
        trace.update(
            {
                "traceName": "tracegen.json",
                "displayTimeUnit": "ms",
                "baseTimeNanoseconds": 1_700_000_000_000_000_000,
            }
        )
        return trace

    def dumps(self, compact: bool = False) -> str:
        """JSON text. Python writes NaN/Infinity literals, as some profilers do."""
        if compact:
            return json.dumps(self.to_dict(), separators=(",", ":"))
        return json.dumps(self.to_dict(), indent=1)

    def write(self, path: str | Path, compact: bool = False) -> Path:
        """Write the trace; gzipped when the name ends in .gz."""
        return write_text(path, self.dumps(compact))


def write_text(path: str | Path, text: str | bytes) -> Path:
    """Write JSON text (or raw bytes) to path, gzipped when the name ends in .gz."""
    path = Path(path)
    data = text.encode() if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def mm_shapes(m: int, k: int, n: int, dtype: str = "float") -> dict:
    """cpu_op args of `aten::mm` on (m, k) @ (k, n), as record_shapes=True writes them."""
    return {
        "Input Dims": [[m, k], [k, n]],
        "Input type": [dtype, dtype],
        "Concrete Inputs": ["", ""],
    }


def training_trace(
    steps: int = 3, *, kernels_per_step: int = 4, slot_us: float = 100.0, **builder_kw: Any
) -> TraceBuilder:
    """A small but complete training loop (builder_kw go to TraceBuilder).

    Each step is `kernels_per_step + 3` slots of `slot_us` long: slot 0 a DataLoader fetch,
    slot 1 an `aten::copy_` whose cudaMemcpyAsync copies the batch (pinned HtoD), then one
    `aten::mm` (256x512 @ 512x1024, fp32, shapes recorded) per slot whose kernel runs half a
    slot later for 0.8 slot; one allocation `[memory]` event per step. Step n (from 1) starts
    at `(n - 1) * step length`.
    """
    b = TraceBuilder(**builder_kw)
    step_us = slot_us * (kernels_per_step + 3)
    for i in range(steps):
        t0 = i * step_us
        b.step(i + 1, t0, step_us - 1)
        b.dataloader(t0 + 1, slot_us - 2)
        ext = b.cpu_op("aten::copy_", t0 + slot_us, slot_us / 2)
        corr = b.runtime(COPY_LAUNCH, t0 + slot_us + 1, slot_us / 4, external_id=ext)
        b.memcpy(t0 + slot_us + 2, slot_us / 2, correlation=corr, external_id=ext, src="Pinned")
        b.memory(t0 + slot_us, 1 << 20, total_allocated=(i + 1) << 20, total_reserved=8 << 20)
        for k in range(kernels_per_step):
            ts = t0 + (k + 2) * slot_us
            b.op_with_kernel(
                "aten::mm",
                ts,
                slot_us / 2,
                kernel=f"gemm_{k}",
                kernel_ts=ts + slot_us / 2,
                kernel_dur=slot_us * 0.8,
                op_args=mm_shapes(256, 512, 1024),
            )
    return b


def load(trace: TraceBuilder | dict, directory: str | Path | None = None, name: str = "trace.json"):
    """Write the trace (to `directory`, else a temporary folder) and read it back as one
    TraceFrame with bottleneck_lab's loader."""
    from bottleneck_lab.trace import load_frame

    text = trace.dumps() if isinstance(trace, TraceBuilder) else json.dumps(trace)
    if directory is not None:
        frame = load_frame(write_text(Path(directory) / name, text))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            frame = load_frame(write_text(Path(tmp) / name, text))
    # A hand-written trace's host spans are the host's real time: no profiler cost to take out
    # (facts.profiler_us_per_op is for traces the profiler recorded).
    frame.profiler_us_per_op = 0.0
    return frame
