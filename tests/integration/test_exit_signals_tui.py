"""SIGTERM and SIGHUP to the TUI in a real pseudo-terminal: the turn recorded as cancelled, the terminal given back.

The attack is a ``kill`` (or a closed terminal window) while an answer streams. Without the handlers
(``app/tui/controllers/exit_signals.py``) the process dies where it stands: the terminal stays on the
alternate screen with mouse tracking on and the cursor hidden, the answer so far is not in the record,
and the status is a death by signal. Without ``app/tui/terminal_guard.py`` a closed terminal hangs the exit
until the controller's last limit (``tests/unit/tui/test_terminal_guard.py`` shows the hang itself).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time

import pytest

from app.core.session.resume import load_session
from tests.exit_signals_support import LONG_STALL_SECONDS
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.test_first_frame import Terminal, start  # noqa: F401 - the fixture: the TUI in a pty

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is a POSIX thing")

PARTIAL = "The partial answer so far"
ENTER_ALT, LEAVE_ALT = b"\x1b[?1049h", b"\x1b[?1049l"
MOUSE_ON, MOUSE_OFF = b"\x1b[?1000h", b"\x1b[?1000l"
HIDE_CURSOR, SHOW_CURSOR = b"\x1b[?25l", b"\x1b[?25h"


# The TUI's side queries (a title, a suggested next step, memory agents) would take the scripted answer.
QUIET = "sessions:\n  auto_title: false\n  recap_on_resume: false\nsuggestions:\n  enabled: false\nmemory:\n  extraction: false\n  recall_model: false\n  dream: false\n"


def quiet(start) -> None:  # type: ignore[no-untyped-def]
    settings = start.paths.user_settings_file
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(QUIET, encoding="utf-8")


def answering(start, fake_llm: FakeOpenAIServer) -> Terminal:  # type: ignore[no-untyped-def]
    """The app is up, a prompt is sent, and the first words of the answer are on screen."""
    quiet(start)
    fake_llm.push(Reply.stall(LONG_STALL_SECONDS, after=["The partial ", "answer so far"]))
    terminal = start()
    terminal.read_until(lambda t: "Quit" in t.text())
    terminal.type(b"explain the project")
    terminal.read_until(lambda t: "explain the project" in t.text())
    for _ in range(30):  # until the session is open: an Enter before that is answered "still starting up"
        terminal.type(b"\r")
        try:
            fake_llm.wait_for_requests(1, timeout=1.0)
            break
        except (AssertionError, TimeoutError):
            continue
    terminal.read_until(lambda t: "answer so far" in t.text())
    return terminal


def exit_status(terminal: Terminal, timeout: float = 60.0, *, read: bool = True) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if read:
            ready, _, _ = select.select([terminal.fd], [], [], 0.05)
            if ready:
                try:
                    terminal.raw += os.read(terminal.fd, 65536)
                except OSError:
                    read = False
        else:
            time.sleep(0.05)
        pid, status = os.waitpid(terminal.pid, os.WNOHANG)
        if pid:
            terminal.status = status
            return os.waitstatus_to_exitcode(status)
    raise AssertionError(f"the program did not exit within {timeout} s; last text: {terminal.text()[-400:]!r}")


def assert_terminal_restored(raw: bytes) -> None:
    """Whatever the app turned on, the last word on it is 'off'."""
    for on, off, what in ((ENTER_ALT, LEAVE_ALT, "alternate screen"), (MOUSE_ON, MOUSE_OFF, "mouse tracking"), (HIDE_CURSOR, SHOW_CURSOR, "cursor")):
        assert raw.rfind(off) > raw.rfind(on), f"{what} left on: the terminal output ends {raw[-300:]!r}"


def assert_recorded_cancelled(start) -> None:  # type: ignore[no-untyped-def]
    records = [r for path in sorted(start.paths.chats_dir.glob("*.jsonl")) for r in load_session(path).records]
    answers = [r.message.content for r in records if r.type == "assistant" and r.message is not None]
    assert answers == [PARTIAL], answers
    assert [r.subtype for r in records if r.type == "system"][-1:] == ["turn_cancelled"]


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_mid_answer_restores_the_terminal_and_keeps_the_answer(start, fake_llm: FakeOpenAIServer, signum: int, code: int) -> None:  # type: ignore[no-untyped-def]
    terminal = answering(start, fake_llm)
    os.kill(terminal.pid, signum)
    assert exit_status(terminal) == code
    assert_terminal_restored(terminal.raw)
    assert_recorded_cancelled(start)


def test_a_closed_terminal_ends_the_app_without_hanging(start, fake_llm: FakeOpenAIServer) -> None:  # type: ignore[no-untyped-def]
    """The window is closed: the pty's master goes, the kernel hangs the terminal up and sends SIGHUP;
    every write the app still makes fails. It exits 129, and the record has the answer so far."""
    terminal = answering(start, fake_llm)
    os.close(terminal.fd)
    terminal.fd = os.open(os.devnull, os.O_RDONLY)  # for the fixture's close()
    assert exit_status(terminal, read=False) == 129
    assert_recorded_cancelled(start)
