"""The top layer: the `bottleneck-lab` commands (cli, demo, peak). Nothing below imports it."""


class UsageError(Exception):
    """Bad arguments or input: one line on stderr, exit 2."""
