"""Records that could not be saved to their session file (a full disk): where they wait, and their way back.

They go to ``unsaved/`` in the user's data directory (``app/paths.py``), else, when that cannot be
written either (the same disk is full), to a directory of this user's own in the temporary directory.
Either is created private (0700) and checked before use: a directory that is a symlink, or belongs
to someone else (another user of a shared ``/tmp`` can create a name before us), is refused, and
nothing is written there.

When the session is opened again, ``merge_rescued`` puts each rescued record back into the session
file right after the record it followed (its ``parentUuid``), so the conversation reads in the order
it happened; the file is replaced atomically, then the rescue file is removed, and the person is told.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from app.paths import user_data_dir

_FILE_MODE = 0o600
_UUID = re.compile(rb'^\{"uuid": ?"([^"\\]*)"')


def rescue_dirs() -> list[Path]:
    """Where rescued records go, in the order tried."""
    uid = getattr(os, "getuid", lambda: 0)()
    return [user_data_dir() / "unsaved", Path(tempfile.gettempdir()) / f"agentctx-unsaved-{uid}"]


def rescue_dir() -> Path:
    """The first place tried: ``unsaved/`` in the user's data directory."""
    return rescue_dirs()[0]


def private_dir(path: Path) -> Path:
    """``path`` as a directory only this user can use; OSError when it is anyone else's or a symlink."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = os.lstat(path)
    owner = getattr(os, "getuid", lambda: info.st_uid)()
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode) or info.st_uid != owner:
        raise OSError(errno.EPERM, f"{path} is not a directory of this user's own (a symlink or someone else's); not used", str(path))
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def keep(file_name: str, data: bytes) -> Path | None:
    """Append ``data`` to the session's rescue file in the first place that takes it; None if none does."""
    for directory in rescue_dirs():
        target = directory / file_name
        try:
            private_dir(directory)
            fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), _FILE_MODE)
            try:
                _write_all(fd, data)
            finally:
                os.close(fd)
        except OSError:
            continue
        return target
    return None


def rescue_files(file_name: str) -> list[Path]:
    """The rescue files of one session that exist, in private directories only."""
    found = []
    for directory in rescue_dirs():
        target = directory / file_name
        try:
            info = os.lstat(directory)
            mine = info.st_uid == getattr(os, "getuid", lambda: info.st_uid)() and stat.S_ISDIR(info.st_mode)
            if mine and stat.S_ISREG(os.lstat(target).st_mode):
                found.append(target)
        except OSError:
            continue
    return found


def merge_rescued(session_file: Path) -> str | None:
    """Put the session's rescued records back into ``session_file``; what the person is told, or None."""
    files = rescue_files(session_file.name)
    if not files or not session_file.is_file():
        return None
    pending: dict[str | None, list[bytes]] = {}
    count = 0
    for path in files:
        for line in path.read_bytes().splitlines():
            try:
                parent = json.loads(line).get("parentUuid")
            except (ValueError, AttributeError):
                continue  # a torn last line of the rescue file: nothing to bring back
            pending.setdefault(parent if isinstance(parent, str) else None, []).append(line + b"\n")
            count += 1
    if count:
        merged = session_file.with_name(f".{session_file.name}.merge")
        with open(session_file, "rb") as source, open(merged, "wb") as out:
            os.chmod(merged, _FILE_MODE)
            for line in _spliced(source, pending):
                out.write(line)
            out.flush()
            os.fsync(out.fileno())
        os.replace(merged, session_file)
    for path in files:
        path.unlink(missing_ok=True)
    if not count:
        return None
    where = ", ".join(str(path) for path in files)
    noun = "record" if count == 1 else "records"
    return f"{count} {noun} that could not be saved while the disk was full (kept in {where}) were put back into this session."


def _spliced(source: Iterator[bytes], pending: dict[str | None, list[bytes]]) -> Iterator[bytes]:
    """The session's lines with each rescued line after the line it followed; orphans at the end."""
    yield from _after(None, pending)
    for line in source:
        if not line.endswith(b"\n"):
            line += b"\n"  # a torn last line stays torn, but on its own
        yield line
        match = _UUID.match(line)
        if match is not None:
            yield from _after(match.group(1).decode("ascii", "replace"), pending)
    for lines in list(pending.values()):
        yield from lines
    pending.clear()


def _after(uuid: str | None, pending: dict[str | None, list[bytes]]) -> Iterator[bytes]:
    for line in pending.pop(uuid, []):
        yield line
        match = _UUID.match(line)
        if match is not None:  # a rescued record another one followed
            yield from _after(match.group(1).decode("ascii", "replace"), pending)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
