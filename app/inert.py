"""Text from outside the app (answers, tool output, file names) made inert before it reaches a terminal.

A terminal obeys control characters: an ESC in a file name, a command's output, a
SKILL.md description or a model's answer could clear the screen, retitle the window
or write the clipboard (OSC 52). Every C0 and C1 control character but newline and
tab is shown as something visible instead: its Unicode control picture (ESC as ␛),
or ``\\x9b`` for the C1 codes, which have none. The TUI draws through ``inert``;
headless output and every CLI listing go through ``InertStream`` (where C1 codes
are written ``\\u009b``, which also keeps JSON output valid JSON).

Here, outside ``app/tui`` and ``app/core``, so that both (and the CLI) can use it.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

_VISIBLE = {code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)}
_VISIBLE[0x7F] = "\u2421"  # ␡
_STREAM = dict(_VISIBLE)
_VISIBLE.update({code: f"\\x{code:02x}" for code in range(0x80, 0xA0)})
_STREAM.update({code: f"\\u{code:04x}" for code in range(0x80, 0xA0)})


def inert(text: str) -> str:
    """``text`` with every control character but newline and tab shown as a visible stand-in."""
    # CRLF is a line end, not a control character worth showing.
    return text.replace("\r\n", "\n").translate(_VISIBLE)


def inert_stream_text(text: str) -> str:
    """Like ``inert``, with C1 codes as ``\\u009b``: valid inside a JSON string as well as readable."""
    return text.replace("\r\n", "\n").translate(_STREAM)


class InertStream(io.TextIOBase):
    """A text stream that writes everything through ``inert_stream_text`` to the stream it wraps."""

    def __init__(self, inner: IO[str]) -> None:
        self.inner = inner

    def write(self, text: str) -> int:  # type: ignore[override]
        self.inner.write(inert_stream_text(text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.inner, "encoding", "utf-8")


@contextmanager
def inert_output() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` made inert for what runs inside (the CLI's subcommands)."""
    saved = sys.stdout, sys.stderr
    if sys.stdout is not None and not isinstance(sys.stdout, InertStream):
        sys.stdout = InertStream(sys.stdout)  # type: ignore[assignment]
    if sys.stderr is not None and not isinstance(sys.stderr, InertStream):
        sys.stderr = InertStream(sys.stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
