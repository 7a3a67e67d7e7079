"""Small filesystem helpers shared by every writer of user data."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# Read once at import (os.umask can only be read by setting it) so new files get
# the permissions any other program would give them.
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def atomic_write_text(path: Path, text: str, *, encoding: str = "utf-8", mode: int | None = None) -> None:
    """Write ``text`` so readers see the old file or the new one, never half of it.

    The temporary file lives in the target's directory so the final rename stays
    on one filesystem (rename is only atomic there). Line endings are written as given.
    """
    atomic_write_bytes(path, text.encode(encoding), mode=mode)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """``atomic_write_text`` for bytes (a file put back exactly as it was, whatever its encoding)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is None:
            mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_UMASK
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
