"""The exit codes every command shares, and the exception a command stops with after saying why."""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class CommandExit(Exception):
    """A command stops with ``code`` after saying why on stderr (e.g. the settings cannot be used)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code
