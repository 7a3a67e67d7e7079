"""Random identifiers: session and record ids (RFC 4122 version 4, as Qwen Code writes them), call and turn ids.

Written out instead of ``uuid.uuid4()`` because importing ``uuid`` imports ``platform`` and more:
about 11 million instructions of every start (1 % of a headless turn, ``valgrind --tool=callgrind
python -c "import asyncio, uuid"`` against ``"import asyncio"``), for sixteen random bytes.
"""

from __future__ import annotations

import os


def uuid4() -> str:
    """A random UUID in its canonical form, e.g. ``"1b4e28ba-2fa1-41d2-883f-0016d3cca427"``."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # the RFC 4122 variant
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def random_hex(length: int) -> str:
    """``length`` random hexadecimal digits (a call or turn id)."""
    return os.urandom((length + 1) // 2).hex()[:length]
