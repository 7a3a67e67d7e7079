"""Reading instruction files: once per load, capped in size, never raising.

Callers decide what a flaw means: a top-level file keeps its (repaired or cut)
text with a warning, while an import of the same file fails with a message.
"""

from __future__ import annotations

import errno
import os
import stat
from app.dataclass import dataclass
from pathlib import Path

# OpenClaw's MAX_WORKSPACE_BOOTSTRAP_FILE_BYTES: beyond this a file is not prose anyone wrote for the model.
MAX_FILE_BYTES = 2 * 1024 * 1024
_UTF8_BOM = b"\xef\xbb\xbf"
_BINARY_SNIFF_BYTES = 8192
_MISSING_ERRNOS = {errno.ENOENT, errno.ENOTDIR}
_MESSAGES = {
    errno.EACCES: "Permission denied",
    errno.EPERM: "Permission denied",
    errno.EISDIR: "Is a directory",
    errno.ELOOP: "Symlink loop",
    errno.ENAMETOOLONG: "File name too long",
}


@dataclass(frozen=True)
class FileText:
    """What reading one path gave."""

    path: Path
    text: str | None = None
    # Set when the file could not be read at all (text is None).
    error: str | None = None
    missing: bool = False
    # The file held more than the cap; text is its first MAX_FILE_BYTES.
    oversize: bool = False
    size: int = 0
    # The bytes were not UTF-8; text was decoded with U+FFFD in place of bad bytes.
    lossy: bool = False

    @property
    def ok(self) -> bool:
        return self.text is not None


def format_bytes(count: int) -> str:
    """``2 MiB`` for whole mebibytes, else a plain byte count."""
    mib = 1024 * 1024
    return f"{count // mib} MiB" if count % mib == 0 else f"{count} bytes"


def describe_os_error(exc: OSError) -> str:
    """A short reason a person understands (no errno names, no repeated path)."""
    if exc.errno in _MESSAGES:
        return _MESSAGES[exc.errno]
    return exc.strerror or str(exc) or type(exc).__name__


def read_text(path: Path, *, max_bytes: int = MAX_FILE_BYTES) -> FileText:
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            return FileText(path, error="Is a directory")
        # A FIFO or device would block or never end.
        if not stat.S_ISREG(info.st_mode):
            return FileText(path, error="Not a regular file")
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        if exc.errno in _MISSING_ERRNOS:
            return FileText(path, missing=True, error="No such file")
        return FileText(path, error=describe_os_error(exc))
    except ValueError:  # a NUL byte in the name (an @import is any text after an @)
        return FileText(path, error="The file name contains a NUL byte")
    if b"\0" in data[:_BINARY_SNIFF_BYTES]:
        # Git's heuristic: a NUL byte near the start means this is not text anyone wrote for the model.
        return FileText(path, error="a binary file (it contains NUL bytes), not instructions", size=info.st_size)
    oversize = len(data) > max_bytes
    if oversize:
        data = _cut_at_char_boundary(data[:max_bytes])
    data = data.removeprefix(_UTF8_BOM)
    try:
        text, lossy = data.decode("utf-8"), False
    except UnicodeDecodeError:
        text, lossy = data.decode("utf-8", errors="replace"), True
    return FileText(path, text=text, oversize=oversize, size=max(info.st_size, len(data)), lossy=lossy)


def _cut_at_char_boundary(data: bytes) -> bytes:
    """Drop a UTF-8 sequence the cap split in two, so the cut alone never looks like bad encoding."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return data
        if byte >= 0xC0:  # lead byte: keep it only when its whole sequence is present
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data if back >= needed else data[:-back]
    return data
