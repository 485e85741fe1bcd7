"""The one error the loader raises for input it cannot use."""

from __future__ import annotations


class TraceError(Exception):
    """Unusable input. The message names the file and what is wrong, in one line."""

    def __init__(self, path: object, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")
