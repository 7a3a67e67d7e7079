"""Bytes that are not UTF-8, in file names and text: the one form they are shown and sent in.

Python hands a file name that is not valid UTF-8 over as a ``str`` holding lone surrogates
(``os.fsdecode``'s "surrogateescape": the byte 0xE9 becomes U+DCE9). Such a string cannot be
encoded as UTF-8, so one of them in a request body, a record or a terminal write used to fail.
Everywhere the program shows or sends text, each such byte is written ``\\xNN`` (two lowercase
hex digits, as Python's ``backslashreplace`` writes it): ``b"caf\\xe9.txt"`` is shown as
``caf\\xe9.txt``. A path the model sends back in that form names the same file again
(``unescape_path``); a name that literally contains ``\\xe9`` is still found first as written.
Any other lone surrogate (a JSON ``\\ud800`` escape) is written ``\\udNNN``.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_BYTE = re.compile(r"\\x([89a-f][0-9a-f])")


def _escape_one(match: re.Match[str]) -> str:
    point = ord(match.group())
    if 0xDC80 <= point <= 0xDCFF:
        return f"\\x{point - 0xDC00:02x}"
    return f"\\u{point:04x}"


def has_surrogates(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def escape(text: str) -> str:
    """``text`` with every undecodable byte written ``\\xNN``: always encodable as UTF-8."""
    if text.isascii():
        return text
    return _SURROGATE.sub(_escape_one, text)


def unescape_path(text: str) -> str:
    """The file name ``escape`` showed as ``text``: each ``\\xNN`` of a byte 0x80-0xFF back to that byte."""
    if "\\x" not in text:
        return text
    return _ESCAPED_BYTE.sub(lambda match: chr(0xDC00 + int(match.group(1), 16)), text)


def scrub(value: Any) -> Any:
    """A JSON-like value with ``escape`` applied to every string in it (keys too).

    The safety net at the request and record boundaries: whatever source was missed, nothing
    that cannot be encoded leaves the program, and a local encoding error is never reported as
    the endpoint's.
    """
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, dict):
        return {scrub(key): scrub(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(item) for item in value]
    return value
