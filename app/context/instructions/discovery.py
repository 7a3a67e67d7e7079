"""Which instruction files apply to a working directory, in the order they are injected (Qwen Code §2).

Per directory, with the file names as the outer loop: the global file, then
either ``~/<name>`` (when the directory is home) or, in a trusted folder, every
``<dir>/<name>`` from the outermost ancestor down to the directory itself. The
personal ``<git root>/.qwen/QWEN.local.md`` comes last so it can override the
shared files.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path

from app.context.instructions.display import display_path, ui_path
from app.context.instructions.fscache import FsCache
from app.context.instructions.fspaths import real_path
from app.context.instructions.memory_types import MemoryType, classify_memory_type
from app.context.instructions.names import DEFAULT_CONTEXT_FILENAMES, LOCAL_CONTEXT_FILENAME, context_filenames
from app.context.instructions.reading import describe_os_error
from app.paths import QWEN_DIR


@dataclass(frozen=True)
class DiscoveredFile:
    """An instruction file that applies to the working directory, found but not read yet."""

    # Absolute; a symlinked file keeps its own name here and is read through the link.
    path: Path
    display_path: str
    ui_path: str
    memory_type: MemoryType


@dataclass(frozen=True)
class SkippedFile:
    """A candidate that exists but cannot be read as a file."""

    path: Path
    display_path: str
    reason: str

    def __str__(self) -> str:
        return f"Skipped {self.display_path}: {self.reason}"


@dataclass
class Discovery:
    """The instruction files that apply, in the order they are injected, and the candidates that could not be read."""

    files: list[DiscoveredFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    # The real git root of cwd (None when there is none); it anchors the local slot.
    git_root: Path | None = None

    @property
    def problems(self) -> list[str]:
        return [str(s) for s in self.skipped]


def discover_instruction_files(
    cwd: Path,
    *,
    global_dir: Path,
    home: Path,
    filenames: Sequence[str] = DEFAULT_CONTEXT_FILENAMES,
    include_dirs: Iterable[Path] = (),
    trusted: bool = True,
) -> list[DiscoveredFile]:
    return discover(cwd, global_dir=global_dir, home=home, filenames=filenames, include_dirs=include_dirs, trusted=trusted).files


def discover(
    cwd: Path,
    *,
    global_dir: Path,
    home: Path,
    filenames: Sequence[str] = DEFAULT_CONTEXT_FILENAMES,
    include_dirs: Iterable[Path] = (),
    trusted: bool = True,
    fs: FsCache | None = None,
) -> Discovery:
    """Like discover_instruction_files, keeping what was skipped and why."""
    names = context_filenames(filenames)
    fs = fs or FsCache()
    # Canonical paths throughout, so the stop directories compare equal to the scanned ones.
    cwd, global_dir, home = real_path(cwd), real_path(global_dir), real_path(home)
    probe = _Probe(cwd)
    dirs = dict.fromkeys([*(real_path(cwd / d) for d in include_dirs), cwd])
    found: list[Path] = []
    for directory in dirs:
        found += _files_for_directory(directory, names, global_dir=global_dir, home=home, trusted=trusted, probe=probe, fs=fs)
    files = _dedupe(found, fs)
    root = fs.git_root(cwd)
    if trusted and root is not None:
        local = root / QWEN_DIR / LOCAL_CONTEXT_FILENAME
        if probe.readable(local) and fs.real(local) not in {fs.real(f) for f in files}:
            files.append(local)
    return Discovery(
        files=[
            DiscoveredFile(
                path=f,
                display_path=display_path(f, cwd),
                ui_path=ui_path(f, cwd, home),
                memory_type=classify_memory_type(f, global_dir=global_dir, home=home, git_root=root),
            )
            for f in files
        ],
        skipped=probe.skipped,
        git_root=root,
    )


def _files_for_directory(
    directory: Path, names: Sequence[str], *, global_dir: Path, home: Path, trusted: bool, probe: _Probe, fs: FsCache
) -> list[Path]:
    project_root = fs.git_root(directory)
    # The upward scan ends after this directory: one level above the project root (or above home).
    stop = project_root.parent if project_root is not None else home.parent
    found: list[Path] = []
    for name in names:
        global_file = global_dir / name
        if probe.readable(global_file):
            found.append(global_file)
        if directory == home:
            home_file = home / name
            if home_file != global_file and probe.readable(home_file):
                found.append(home_file)
        elif trusted:
            found += _upward(directory, name, stop=stop, barriers={global_dir, home / QWEN_DIR}, skip=global_file, probe=probe)
    return found


def _upward(start: Path, name: str, *, stop: Path, barriers: set[Path], skip: Path, probe: _Probe) -> list[Path]:
    """``<dir>/<name>`` from ``start`` upwards, returned outermost first."""
    found: list[Path] = []
    current = start
    while current not in barriers:
        candidate = current / name
        if candidate != skip and probe.readable(candidate):
            found.append(candidate)
        if current == stop or current.parent == current:
            break
        current = current.parent
    found.reverse()
    return found


def _dedupe(paths: list[Path], fs: FsCache) -> list[Path]:
    """First occurrence wins; two names for one file (a symlink and its target) count as one."""
    seen: set[Path] = set()
    kept: list[Path] = []
    for path in paths:
        key = fs.real(path)
        if key not in seen:
            seen.add(key)
            kept.append(path)
    return kept


class _Probe:
    """Answers "is this a readable file?" once per path and remembers why not, when it matters."""

    def __init__(self, cwd: Path) -> None:
        self._cwd = cwd
        self._answers: dict[Path, bool] = {}
        self.skipped: list[SkippedFile] = []

    def readable(self, path: Path) -> bool:
        answer = self._answers.get(path)
        if answer is None:
            reason = _unreadable_reason(path)
            answer = reason is None
            if reason and reason != _ABSENT:
                self.skipped.append(SkippedFile(path, display_path(path, self._cwd), reason))
            self._answers[path] = answer
        return answer


_ABSENT = "absent"


def _unreadable_reason(path: Path) -> str | None:
    """None for a readable regular file; ``_ABSENT`` when nothing is there; else a reason to report."""
    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            # A dangling link was meant to be read; plain absence is the normal case.
            return "broken symlink" if os.path.islink(path) else _ABSENT
        return describe_os_error(exc)
    if stat.S_ISDIR(info.st_mode):
        return "a directory, not a file"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if not os.access(path, os.R_OK):
        return "Permission denied"
    return None
