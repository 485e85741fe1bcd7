"""Sample one GPU through NVML (package nvidia-ml-py, module pynvml) in a background thread.

    with NvmlSampler(cuda_index=0) as s:
        run_steps()
    facts = s.summary(steps=n)     # {"available": False, "reason": ...} when NVML is missing

Never raises for a missing library, driver or counter: the summary says what was not there.
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any


def _stats(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {"mean": statistics.fmean(values), "max": max(values), "min": min(values)}


class NvmlSampler:
    """Polls utilisation, memory used, power and SM clock every `interval_s` while entered."""

    def __init__(self, cuda_index: int = 0, uuid: str | None = None, interval_s: float = 0.02):
        self.interval_s = interval_s
        self.reason: str | None = None
        self._nvml: Any = None
        self._handle: Any = None
        self._rows: list[tuple[float, float | None, float, float | None, float | None]] = []
        self._energy_mj: list[int] = []
        self._t: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        try:
            import pynvml

            pynvml.nvmlInit()
            self._nvml = pynvml
            self._handle = self._find_handle(cuda_index, uuid)
        except Exception as exc:  # no library, no driver, no permission: say so, never fail
            self.reason = f"{type(exc).__name__}: {exc}".strip()

    def _find_handle(self, cuda_index: int, uuid: str | None) -> Any:
        nv = self._nvml
        if uuid:
            for candidate in (uuid, f"GPU-{uuid}"):
                try:
                    return nv.nvmlDeviceGetHandleByUUID(candidate)
                except Exception:
                    pass
        return nv.nvmlDeviceGetHandleByIndex(cuda_index)

    @property
    def available(self) -> bool:
        return self._handle is not None

    def _energy(self) -> int | None:
        try:
            return int(self._nvml.nvmlDeviceGetTotalEnergyConsumption(self._handle))
        except Exception:
            return None

    def _sample(self) -> None:
        nv, h = self._nvml, self._handle
        t = time.perf_counter()

        def read(fn: Any, *args: Any) -> Any:
            try:
                return fn(h, *args)
            except Exception:
                return None

        util = read(nv.nvmlDeviceGetUtilizationRates)
        mem = read(nv.nvmlDeviceGetMemoryInfo)
        power_mw = read(nv.nvmlDeviceGetPowerUsage)
        clock = read(nv.nvmlDeviceGetClockInfo, nv.NVML_CLOCK_SM)
        self._rows.append(
            (
                t,
                None if util is None else float(util.gpu),
                float("nan") if mem is None else mem.used / 2**20,
                None if power_mw is None else power_mw / 1000.0,
                None if clock is None else float(clock),
            )
        )

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval_s)

    def __enter__(self) -> NvmlSampler:
        if self.available:
            self._stop.clear()
            e = self._energy()
            self._energy_mj = [] if e is None else [e]
            self._t = [time.perf_counter()]
            self._thread = threading.Thread(target=self._loop, name="nvml-sampler", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
            self._sample()
            self._t.append(time.perf_counter())
            e = self._energy()
            if e is not None and self._energy_mj:
                self._energy_mj.append(e)

    def summary(self, steps: int) -> dict[str, Any]:
        if not self.available:
            return {"available": False, "reason": self.reason or "NVML not initialised"}
        nv, h = self._nvml, self._handle
        rows = self._rows
        seconds = (self._t[-1] - self._t[0]) if len(self._t) == 2 else None
        power = [r[3] for r in rows if r[3] is not None]
        out: dict[str, Any] = {
            "available": True,
            "device_name": _text(nv.nvmlDeviceGetName(h)),
            "driver_version": _text(nv.nvmlSystemGetDriverVersion()),
            "interval_s": self.interval_s,
            "samples": len(rows),
            "seconds": seconds,
            "gpu_util_pct": _stats([r[1] for r in rows if r[1] is not None]),
            "memory_used_mib": _stats([r[2] for r in rows if r[2] == r[2]]),
            "power_w": _stats(power),
            "sm_clock_mhz": _stats([r[4] for r in rows if r[4] is not None]),
        }
        energy_j = None
        if len(self._energy_mj) == 2 and self._energy_mj[1] > self._energy_mj[0]:
            energy_j, out["energy_source"] = (
                (self._energy_mj[1] - self._energy_mj[0]) / 1000.0,
                ("nvmlDeviceGetTotalEnergyConsumption delta"),
            )
        elif len(power) >= 2:
            ts = [r[0] for r in rows if r[3] is not None]
            energy_j = sum(
                (ts[i + 1] - ts[i]) * (power[i] + power[i + 1]) / 2 for i in range(len(power) - 1)
            )
            out["energy_source"] = "power samples integrated over time"
        out["energy_j"] = energy_j
        out["energy_j_per_step"] = None if energy_j is None or steps <= 0 else energy_j / steps
        return out

    def close(self) -> None:
        if self._nvml is not None:
            try:
                self._nvml.nvmlShutdown()
            except Exception:
                pass
            self._nvml = None
            self._handle = None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
