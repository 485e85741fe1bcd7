"""Detector registry: one module per detector, checked when this package is imported.

A detector module defines:

    CODE      unique short code, e.g. "BL001"-style names are avoided: codes say what they are
    KIND      one of diagnosis.KINDS
    REQUIRES  set of prerequisites: "kernels", "steps", "runtime", "cpu_ops", "shapes",
              "memory_events", "nccl", "dataloader"
    Config    frozen dataclass of thresholds, units in field names
    detect(frame, cfg) -> list[Finding]
    a module docstring: symptom / likely cause / fix (what `bottleneck-lab explain CODE` prints)
    example(bad) -> TraceBuilder, with a docstring: a tiny hand-written trace that shows the
              bottleneck (bad=True, the positive: detect finds CODE) or its cure (bad=False, the
              negative: no CODE finding); tests run both, `explain` shows the positive

Registration fails at import on a duplicate code, a missing docstring or example, or a wrong
signature.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..diagnosis import KINDS

MODULES = (
    "idle_gaps",
    "host_bound",
    "data_loading",
    "sync_stall",
    "launch_overhead",
    "small_batch",
    "memcpy",
    "communication",
    "precision",
    "activation_memory",
    "recompute",
    "memory_capacity",
    "recompilation",
    "cold_start",
    "fusion",
    "eager_attention",
    "dense_causal_mask",
    "expert_loop",
    "prefix_recompute",
)
PREREQUISITES = {
    "kernels",
    "steps",
    "runtime",
    "cpu_ops",
    "shapes",
    "memory_events",
    "nccl",
    "dataloader",
}


@dataclass(frozen=True)
class Detector:
    code: str
    kind: str
    requires: frozenset[str]
    config: type
    detect: Callable[..., list]
    doc: str
    module: str
    example: Callable[..., Any]  # example(bad) -> TraceBuilder: positive (True), negative (False)


class RegistryError(Exception):
    pass


def _check(mod: ModuleType) -> Detector:
    name = mod.__name__
    for attr in ("CODE", "KIND", "REQUIRES", "Config", "detect", "example"):
        if not hasattr(mod, attr):
            raise RegistryError(f"{name}: missing {attr}")
    if not (mod.__doc__ or "").strip():
        raise RegistryError(f"{name}: missing docstring (symptom / likely cause / fix)")
    if mod.KIND not in KINDS:
        raise RegistryError(f"{name}: unknown kind {mod.KIND!r}")
    unknown = set(mod.REQUIRES) - PREREQUISITES
    if unknown:
        raise RegistryError(f"{name}: unknown prerequisites {sorted(unknown)}")
    if not (dataclasses.is_dataclass(mod.Config) and mod.Config.__dataclass_params__.frozen):
        raise RegistryError(f"{name}: Config must be a frozen dataclass")
    params = list(inspect.signature(mod.detect).parameters)
    if params != ["frame", "cfg"]:
        raise RegistryError(f"{name}: detect must take (frame, cfg), not {params}")
    if list(inspect.signature(mod.example).parameters)[:1] != ["bad"]:
        raise RegistryError(
            f"{name}: example must take bad first (True: positive, False: negative)"
        )
    if not (mod.example.__doc__ or "").strip():
        raise RegistryError(f"{name}: example needs a docstring saying what its traces show")
    return Detector(
        mod.CODE,
        mod.KIND,
        frozenset(mod.REQUIRES),
        mod.Config,
        mod.detect,
        inspect.cleandoc(mod.__doc__),
        name,
        mod.example,
    )


def _load() -> dict[str, Detector]:
    registry: dict[str, Detector] = {}
    for m in MODULES:
        det = _check(importlib.import_module(f"{__name__}.{m}"))
        if det.code in registry:
            raise RegistryError(
                f"duplicate detector code {det.code!r} in {det.module} and {registry[det.code].module}"
            )
        registry[det.code] = det
    return registry


REGISTRY: dict[str, Detector] = _load()


def configs(overrides: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Each detector's Config, with `--set detector.field=value` overrides applied."""
    out = {code: det.config() for code, det in REGISTRY.items()}
    for code, fields in (overrides or {}).items():
        out[code] = dataclasses.replace(out[code], **fields)
    return out


def parse_override(text: str) -> tuple[str, str, Any]:
    """'detector.field=value' -> (code, field, typed value). Raises ValueError with one line."""
    key, sep, value = text.partition("=")
    code, dot, fld = key.partition(".")
    if not sep or not dot:
        raise ValueError(f"--set {text!r}: expected detector.field=value")
    if code not in REGISTRY:
        raise ValueError(f"--set {text!r}: unknown detector {code!r} (see --list-detectors)")
    fields = {f.name: f for f in dataclasses.fields(REGISTRY[code].config)}
    if fld not in fields:
        raise ValueError(
            f"--set {text!r}: {code} has no field {fld!r} (fields: {', '.join(fields)})"
        )
    default = getattr(REGISTRY[code].config(), fld)
    try:
        if isinstance(default, bool):
            typed: Any = value.lower() in ("1", "true", "yes", "on")
        else:
            typed = type(default)(value)
    except ValueError:
        raise ValueError(f"--set {text!r}: {value!r} is not a {type(default).__name__}") from None
    return code, fld, typed
