"""The TUI in a real pseudo-terminal: the first frame replayed before Textual loads, and no typed word lost.

Each test starts ``python -m app`` in a 120x40 pty against the scripted local server, as a person's
shell would, and reads what the terminal receives.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

from app.paths import Paths
from app.tui.frame_cache import ENTER, FORMAT, frame_file
from app.tui.prompt_store import read_draft
from tests.fakes.openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_=>]")
# What Textual's driver sends first when it takes the terminal (mouse reporting on).
TEXTUAL_STARTED = b"\x1b[?1000h"
CTRL_C = b"\x03"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is a POSIX thing")


class Terminal:
    """One run of the program in a pty: what it wrote, and the keys sent to it."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the program
            os.chdir(cwd)
            os.execve(sys.executable, [sys.executable, "-m", "app"], env)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.pid, self.fd, self.raw, self.status = pid, fd, b"", None

    def text(self) -> str:
        return ESCAPES.sub(b"", self.raw).decode("utf-8", "replace")

    def read_until(self, done, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while not done(self):
            left = deadline - time.monotonic()
            assert left > 0, f"not on screen in {timeout} s; last text: {self.text()[-600:]!r}"
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.05))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    assert done(self), f"the program closed the terminal; last text: {self.text()[-600:]!r}"
                    return
                self.raw += chunk

    def type(self, data: bytes) -> None:
        os.write(self.fd, data)

    def quit(self, timeout: float = 30.0) -> int:
        """ctrl+c twice, as a person quits; the exit code."""
        self.type(CTRL_C)
        time.sleep(0.3)
        self.type(CTRL_C)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    self.raw += os.read(self.fd, 65536)
                except OSError:
                    pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
                return os.waitstatus_to_exitcode(status)
        raise AssertionError(f"the program did not quit; last text: {self.text()[-600:]!r}")

    def close(self) -> None:
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


@pytest.fixture
def start(fake_llm: FakeOpenAIServer, tmp_path: Path):  # type: ignore[no-untyped-def]
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST", "COLUMNS", "LINES"))}
    env.update(
        PYTHONPATH=str(ROOT), OPENAI_BASE_URL=fake_llm.base_url, OPENAI_API_KEY="test", OPENAI_MODEL="fake-model",
        TERM="xterm-256color",
    )
    env.pop("NO_COLOR", None)
    started: list[Terminal] = []

    def run() -> Terminal:
        terminal = Terminal(project, env)
        started.append(terminal)
        return terminal

    run.paths = Paths.for_cwd(project)  # type: ignore[attr-defined]
    yield run
    for terminal in started:
        terminal.close()


def _saved_frame(paths: Paths, timeout: float = 30.0) -> str:
    path = frame_file(paths, 120, 40)
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, "the first start kept no frame"
        time.sleep(0.05)
    header, _, frame = path.read_text(encoding="utf-8").partition("\n")
    assert header.startswith(FORMAT)
    return frame


def _first_start(start) -> str:  # type: ignore[no-untyped-def]
    """A first start in the project, left until it kept its frame, then quit; the frame."""
    first = start()
    first.read_until(lambda t: "Quit" in t.text())
    frame = _saved_frame(start.paths)
    assert first.quit() == 0
    return frame


def test_the_next_start_draws_the_kept_frame_before_textual_takes_the_terminal(start) -> None:  # type: ignore[no-untyped-def]
    frame = _first_start(start)

    second = start()
    expected = ENTER.encode() + frame.encode()
    second.read_until(lambda t: len(t.raw) >= len(expected))
    # The very first thing the terminal receives (the pty turns each "\n" into "\r\n").
    assert second.raw.replace(b"\r\n", b"\n").startswith(expected)
    second.read_until(lambda t: TEXTUAL_STARTED in t.raw)
    assert second.raw.index(TEXTUAL_STARTED) > len(expected)
    assert second.quit() == 0


def test_keys_typed_over_the_replayed_frame_reach_the_prompt_and_the_shell_gets_its_echo_back(start) -> None:  # type: ignore[no-untyped-def]
    frame = _first_start(start)

    second = start()
    second.read_until(lambda t: len(t.raw) >= len(ENTER) + len(frame.encode()))
    second.type(b"words typed at once")  # before Textual is even imported
    second.read_until(lambda t: "words typed at once" in t.text())
    assert second.quit() == 0
    assert read_draft(start.paths) == "words typed at once"  # the prompt had them, and they were kept
    attributes = termios.tcgetattr(second.fd)
    assert attributes[3] & termios.ECHO and attributes[3] & termios.ICANON  # as before the replay


def test_with_no_kept_frame_keys_typed_while_the_app_starts_are_not_lost(start) -> None:  # type: ignore[no-untyped-def]
    terminal = start()
    terminal.type(b"early words")  # at once: the terminal holds them until the prompt reads them
    terminal.read_until(lambda t: TEXTUAL_STARTED in t.raw)
    terminal.read_until(lambda t: t.text().count("early words") >= 2)  # the shell's echo, then the prompt
    assert terminal.quit() == 0
    assert read_draft(start.paths) == "early words"


def test_a_changed_draft_means_no_replay(start) -> None:  # type: ignore[no-untyped-def]
    first = start()
    first.read_until(lambda t: "Quit" in t.text())
    _saved_frame(start.paths)
    first.type(b"a draft")
    first.read_until(lambda t: "a draft" in t.text())
    assert first.quit() == 0  # the draft is saved on quit: the kept frame does not show it

    second = start()
    second.read_until(lambda t: TEXTUAL_STARTED in t.raw)
    assert not second.raw.startswith(ENTER.encode())
    second.read_until(lambda t: "a draft" in t.text())
    assert second.quit() == 0
