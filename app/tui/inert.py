"""Text from outside the app (answers, tool output, file names) made inert before it is drawn.

Textual passes control characters through to the terminal, so an ESC in a file name
or a command's output could clear the screen, retitle the window or write the
clipboard (OSC 52). Every C0 and C1 control character but newline and tab is drawn
as something visible instead: its Unicode control picture (ESC as ␛), or ``\\x9b``
for the C1 codes, which have none.
"""

from __future__ import annotations

_VISIBLE = {code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)}
_VISIBLE[0x7F] = "\u2421"  # ␡
_VISIBLE.update({code: f"\\x{code:02x}" for code in range(0x80, 0xA0)})


def inert(text: str) -> str:
    """``text`` with every control character but newline and tab shown as a visible stand-in."""
    # CRLF is a line end, not a control character worth showing.
    return text.replace("\r\n", "\n").translate(_VISIBLE)
