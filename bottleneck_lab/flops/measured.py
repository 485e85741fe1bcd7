"""Peaks measured by `bottleneck-lab peak`, saved as JSON keyed by device name: where the file
lives, how an entry is written, and how `analyze --peaks-file` reads one back as a DevicePeak."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .peaks import DevicePeak

DEFAULT_PATH = (
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "bottleneck-lab" / "peaks.json"
)


def save(result: dict[str, Any], path: Path = DEFAULT_PATH) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = json.loads(path.read_text()) if path.is_file() else {}
    saved[result["device"]] = result
    path.write_text(json.dumps(saved, indent=2) + "\n")
    return path


def load_measured(device_name: str | None, path: Path = DEFAULT_PATH) -> DevicePeak | None:
    """The saved measurement for this device name, as a DevicePeak naming where it came from."""
    if not device_name or not path.is_file():
        return None
    try:
        entry = json.loads(path.read_text()).get(device_name)
    except (OSError, ValueError):
        return None
    if not entry:
        return None
    return DevicePeak(
        device_name,
        dict(entry["tflops"]),
        entry.get("mem_bw_gbps"),
        f"measured by `bottleneck-lab peak` on {entry.get('measured_utc')} ({path})",
    )
