"""The `slow` marker for the HTA comparison tests, skipped unless asked for.

    pytest tests/hta                      fast: every external trace but the 54 MB V100 one
    pytest tests/hta -m slow              only the slow ones
    BOTTLENECK_LAB_SLOW=1 pytest tests    everything

pytest imports every conftest.py that is not inside a package under the one module name
`conftest`, so after this file is imported `from conftest import EXTERNAL_TRACES` would find this
file instead of tests/conftest.py, here and in every test module collected later.
pytest_configure puts the root conftest back under that name.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT_CONFTEST = HERE.parent / "conftest.py"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: takes several seconds (large trace); skipped unless -m slow or "
        "BOTTLENECK_LAB_SLOW=1",
    )
    for plugin in config.pluginmanager.get_plugins():
        f = getattr(plugin, "__file__", None)
        if f and Path(f).resolve() == ROOT_CONFTEST:
            sys.modules["conftest"] = plugin
            break


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "slow" in (config.getoption("markexpr") or "") or os.environ.get("BOTTLENECK_LAB_SLOW"):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow or BOTTLENECK_LAB_SLOW=1")
    for item in items:
        if "slow" in item.keywords and HERE in Path(item.path).resolve().parents:
            item.add_marker(skip)
