"""The first frame on screen before Textual is imported: the one this project drew last time at this size.

Why: a Textual app cannot paint sooner than its imports and its first layout allow. A three-widget
Textual app takes 0.34 s to its first frame on the project's 2-core machine and ours 0.52 s
(``bench/startup.py``), while Qwen Code 0.24.4 draws its banner at 2.4 s (``bench/peers.py``);
importing textual.app alone is 0.2 s of that. So the TUI keeps the bytes of its first frame, what it
paints before anything has happened (the empty conversation, the prompt with its draft, the gauge,
the footer), under a key made of everything that frame depends on; the next start with the same key
writes those bytes to the terminal first, about 0.06 s after the process starts, and Textual paints
the same frame over them when it is ready. Phones show a launch snapshot of an app for the same reason.

What the person types meanwhile is not lost: echo and line editing are off from the moment the frame
is drawn, so keys wait in the terminal's input queue and reach the prompt when Textual reads it.
Nothing else is pretended: the frame is what the same settings, size, draft and code drew, and the
first thing that differs (a new setting, another size, a changed draft, a code change) means no
replay, just the ordinary start. ``ui.first_frame_cache: false`` turns it off.

This module imports nothing of Textual (it runs before it is imported); the driver that takes the
screen over is ``app/tui/replay_driver.py``, the capture is in ``app/tui/app.py``.
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.fsutil import atomic_write_text
from app.paths import ensure_private_dir

if TYPE_CHECKING:
    from app.config import Settings
    from app.paths import Paths

FORMAT = "agentctx-first-frame 1"
# Environment that changes how Textual draws (colours, its own switches) or what the frame shows.
_DRAWING_ENV = ("TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TERM_PROGRAM")
# The code that draws the frame: our TUI package and its styles (a code change means no replay).
_TUI_DIR = Path(__file__).resolve().parent
# Entering the alternate screen, hiding the cursor, clearing; a synchronized update where the
# terminal supports it (others ignore the sequence), so the frame appears at once.
ENTER = "\x1b[?1049h\x1b[?25l\x1b[?2026h\x1b[H\x1b[2J"
DRAWN = "\x1b[?2026l"
LEAVE = "\x1b[?2026l\x1b[?25h\x1b[?1049l"


@dataclass
class FirstFrame:
    """Where this start's first frame is kept and under which key; ``replayed`` when it is on screen already."""

    path: Path
    key: str
    replayed: ReplayedFrame | None = None


def prepare(settings: Settings, paths: Paths, *, resume: str | None, continue_latest: bool, fd: int = 1) -> FirstFrame | None:
    """The key of this start's first frame, and the saved frame drawn when the key matches.

    None when the setting is off or the output is not a terminal (nothing to draw, nothing to keep).
    """
    if not settings.ui.first_frame_cache or os.name != "posix" or not os.isatty(fd):
        return None
    size = terminal_size(fd)
    if size is None:
        return None
    from app.shipped import STYLES, shipped_dir

    key = frame_key(settings, paths, size=size, resume=resume, continue_latest=continue_latest, styles=shipped_dir(STYLES))
    path = frame_file(paths, *size)
    return FirstFrame(path, key, replay(path, key, fd))


def frame_file(paths: Paths, columns: int, lines: int) -> Path:
    """One file per project and terminal size: the newest frame of that size replaces the older one."""
    return paths.project_state_dir / "first-frame" / f"{columns}x{lines}.ans"


def frame_key(
    settings: Settings,
    paths: Paths,
    *,
    size: tuple[int, int],
    resume: str | None,
    continue_latest: bool,
    env: dict[str, str] | os._Environ[str] | None = None,
    styles: Path | None = None,
) -> str:
    """A digest of everything the first frame depends on (the settings include the model and keymap)."""
    env = os.environ if env is None else env
    from app.tui.prompt_store import draft_file

    parts = [
        FORMAT,
        repr(settings),
        str(paths.cwd),
        f"{size[0]}x{size[1]}",
        f"resume={resume!r} continue={continue_latest}",
        *(f"{name}={env.get(name, '')}" for name in _DRAWING_ENV),
        *(f"{name}={value}" for name, value in sorted(env.items()) if name.startswith("TEXTUAL")),
        f"draft={_stamp(draft_file(paths))}",
        f"code={_tree_stamp(_TUI_DIR)} styles={_tree_stamp(styles) if styles else ''} textual={_textual_stamp()}",
        sys.version,
    ]
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class ReplayedFrame:
    """The terminal a replay changed: handed over to Textual's driver, or put back if Textual never starts."""

    fd: int  # where the frame was written (the terminal's output)
    input_fd: int = 0
    # The terminal's settings before the replay turned echo off (what the person's shell gets back).
    original_attrs: list | None = None
    taken_over: bool = False
    frame: str = field(default="", repr=False)

    def undo(self) -> None:
        """Leave the alternate screen and restore the terminal, unless Textual took it over."""
        if self.taken_over:
            return
        self.taken_over = True
        _write(self.fd, LEAVE)
        if self.original_attrs is not None:
            import termios

            try:
                termios.tcsetattr(self.input_fd, termios.TCSANOW, self.original_attrs)
            except termios.error:
                pass


def terminal_size(fd: int) -> tuple[int, int] | None:
    try:
        size = os.get_terminal_size(fd)
    except OSError:
        return None
    return size.columns, size.lines


def replay(path: Path, key: str, fd: int, input_fd: int = 0) -> ReplayedFrame | None:
    """Draw the saved frame on ``fd`` when its key matches; None (and nothing written) otherwise."""
    if os.name != "posix" or not (os.isatty(fd) and os.isatty(input_fd)):
        return None
    try:
        with path.open("r", encoding="utf-8", newline="") as handle:
            header = handle.readline()
            if header.rstrip("\n") != f"{FORMAT} {key}":
                return None
            frame = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    import termios

    replayed = ReplayedFrame(fd, input_fd, frame=frame)
    try:
        original = termios.tcgetattr(input_fd)
        quiet = termios.tcgetattr(input_fd)
        quiet[3] &= ~(termios.ECHO | termios.ICANON)  # keys wait, unechoed, for the prompt
        termios.tcsetattr(input_fd, termios.TCSANOW, quiet)
        replayed.original_attrs = original
    except termios.error:
        return None
    if not _write(fd, ENTER + frame + DRAWN):
        replayed.undo()
        return None
    return replayed


def save(path: Path, key: str, frame: str) -> None:
    """Keep ``frame`` for the next start (private: it shows the draft); an identical one is not rewritten."""
    text = f"{FORMAT} {key}\n{frame}"
    try:
        if path.exists():
            with path.open("r", encoding="utf-8", newline="") as handle:
                if handle.read() == text:
                    return
        ensure_private_dir(path.parent)
        atomic_write_text(path, text, mode=0o600)
    except (OSError, UnicodeDecodeError):
        pass  # only a head start for the next launch


def _write(fd: int, text: str) -> bool:
    data = text.encode("utf-8", "surrogateescape")
    try:
        while data:
            written = os.write(fd, data)
            data = data[written:]
    except OSError:
        return False
    return True


def _stamp(path: Path) -> str:
    try:
        info = path.stat()
    except OSError:
        return "-"
    return f"{info.st_mtime_ns}:{info.st_size}"


def _tree_stamp(root: Path) -> str:
    """The newest change among the files under ``root`` (about 60 files here: well under a millisecond)."""
    newest, count = 0, 0
    stack = [str(root)]
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(entry.path)
                    continue
                try:
                    newest = max(newest, entry.stat(follow_symlinks=False).st_mtime_ns)
                except OSError:
                    continue
                count += 1
    return f"{newest}:{count}"


def _textual_stamp() -> str:
    """Where Textual is installed and when it changed, without importing it (an upgrade draws differently)."""
    import importlib.util

    spec = importlib.util.find_spec("textual")
    if spec is None or not spec.origin:
        return "-"
    return f"{spec.origin}:{_stamp(Path(spec.origin))}"
