"""One measurement in a fresh Python process, for the zoo's measuring scripts (compile_savings.py,
batch_sweep.py, hf_check_cost.py): compile caches, allocator state and patched modules never
leak from one run into the next. The script runs `script --one ARGS...` and prints one line
`RESULT <json>`; a run that fails or runs out of time is reported and skipped, the others go on.
"""

from __future__ import annotations

import json
import subprocess
import sys


def result_of(
    script: str, args: list[str], label: str, timeout: float | None = None
) -> dict | None:
    """The dict of the last `RESULT ` line `script --one *args` printed, or None (said on stdout
    with `label` and the end of the process's stderr) where it failed or took over `timeout`
    seconds."""
    try:
        proc = subprocess.run(
            [sys.executable, script, "--one", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        print(f"--- {label} took over {timeout:.0f} s: not measured", flush=True)
        return None
    lines = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
    if not lines:
        print(f"--- {label} failed:\n{proc.stderr[-2000:]}", flush=True)
        return None
    row = json.loads(lines[-1][len("RESULT ") :])
    print(json.dumps(row), flush=True)
    return row
