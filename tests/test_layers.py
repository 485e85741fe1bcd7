"""Data flows one way: trace -> facts -> detectors -> diagnosis -> report -> commands.

LAYERS is the package's architecture, lowest first. A module may import its own layer and the
layers below it, never one above, not even lazily inside a function; and no two modules may
import each other, directly or round a loop. Every module of the package must be placed here, so
a new one is placed on purpose. The README's ARCHITECTURE section describes the same table.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "bottleneck_lab"

# (layer, what it holds, top-level modules and packages of bottleneck_lab in it), lowest first.
LAYERS = (
    ("trace", "the file format; capture; demo runs and sidecars", ("trace", "capture", "nvml", "demos")),
    ("models", "op FLOP/byte models, device peak tables (data)", ("flops",)),
    ("facts", "steps, idle gaps and their causes, op FLOPs", ("device", "op_flops", "facts")),
    ("derived", "efficiency (MFU, roofline), memory, HTA's view, the replay", ("efficiency", "memory", "hta_bridge", "replay")),
    ("findings", "Finding and Diagnosis, plain values", ("diagnosis",)),
    ("detectors", "one module per detector, the registry", ("detectors",)),
    ("engine", "detectors -> ranked Diagnosis; many ranks; comparing two", ("rank_analysis", "ranks", "analyze", "compare")),
    ("report", "renderers: text, markdown, json, html, plots", ("report",)),
    ("commands", "the CLI; the package root's public API", ("commands", "__main__", "__init__")),
)  # fmt: skip
RANK = {top: i for i, (_, _, tops) in enumerate(LAYERS) for top in tops}
NAMES = [name for name, _, _ in LAYERS]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def where(module: str) -> str:
    return "bottleneck_lab/" + MODULES[module].as_posix().rsplit("/bottleneck_lab/", 1)[1]


def layer_of(module: str) -> int:
    """The layer of a module of the package, by its top-level name under bottleneck_lab."""
    parts = module.split(".")
    return RANK[parts[1] if len(parts) > 1 else "__init__"]


def imports(module: str) -> list[tuple[str, int]]:
    """(imported module of the package, line) for every import anywhere in the file: module
    level and inside functions. `from pkg import sub` names the submodule when there is one."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.append((sub if sub in MODULES else base, node.lineno))
    return [(m, line) for m, line in out if m.split(".")[0] == "bottleneck_lab"]


def test_every_module_has_a_layer():
    unplaced = sorted({m.split(".")[1] for m in MODULES if "." in m} - set(RANK))
    assert not unplaced, f"place these in LAYERS (tests/test_layers.py): {unplaced}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_upward_import(module):
    here = layer_of(module)
    upward = [
        f"{where(module)}:{line} imports {target} "
        f"(layer {NAMES[layer_of(target)]!r} is above {NAMES[here]!r})"
        for target, line in imports(module)
        if target in MODULES and layer_of(target) > here
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycle():
    graph = {m: {t for t, _ in imports(m) if t in MODULES and t != m} for m in MODULES}
    # A module importing its own package's __init__ only reads a name from it; the package
    # importing its submodules is how packages work. Only loops through other modules count.
    graph = {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in graph.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                return stack[stack.index(t) :] + [t]
            if t not in state and (loop := visit(t)):
                return loop
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (loop := visit(m)):
            pytest.fail("import cycle: " + " -> ".join(loop))


def test_the_checker_sees_a_lazy_upward_import(tmp_path, monkeypatch):
    """The check reads imports inside functions too: a lazy import of the report layer from
    the findings layer (as diagnosis.py once did for _repr_html_) is caught, with its line."""
    fake = tmp_path / "bottleneck_lab" / "diagnosis.py"
    fake.parent.mkdir()
    fake.write_text("def _repr_html_(self):\n    from .report.html import render_html\n")
    monkeypatch.setitem(MODULES, "bottleneck_lab.diagnosis", fake)
    with pytest.raises(AssertionError, match=r"diagnosis.py:2 imports bottleneck_lab.report.html"):
        test_no_upward_import("bottleneck_lab.diagnosis")
