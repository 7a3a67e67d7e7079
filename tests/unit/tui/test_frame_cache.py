"""The first frame's key, file, replay and undo (app/tui/frame_cache.py), on real pseudo-terminals."""

from __future__ import annotations

import os
import pty
import stat
import termios
from pathlib import Path

import pytest

from app.config import load_settings
from app.paths import Paths
from app.tui import frame_cache
from app.tui.frame_cache import DRAWN, ENTER, LEAVE, FirstFrame, frame_file, frame_key, prepare, replay, save
from app.tui.prompt_store import save_draft

FRAME = "\x1b[1;1Hthe whole screen, as Textual drew it"


@pytest.fixture
def paths(tmp_path: Path) -> Paths:
    (tmp_path / "repo").mkdir()
    return Paths.for_cwd(tmp_path / "repo")


@pytest.fixture
def terminal():  # type: ignore[no-untyped-def]
    """A pty pair: (master, slave); the slave stands for the program's terminal."""
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    yield master, slave
    os.close(master)
    os.close(slave)


def _key(paths: Paths, **changes: object) -> str:
    settings = load_settings(paths)
    options: dict = {"size": (120, 40), "resume": None, "continue_latest": False, "env": {"TERM": "xterm-256color"}}
    options.update(changes)
    return frame_key(settings, paths, **options)


def _read(master: int) -> bytes:
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except (BlockingIOError, OSError):
            return data
        if not chunk:
            return data
        data += chunk


def test_the_key_is_the_same_for_the_same_start(paths: Paths) -> None:
    assert _key(paths) == _key(paths)


@pytest.mark.parametrize(
    "change",
    [
        {"size": (100, 30)},
        {"resume": "abc123"},
        {"continue_latest": True},
        {"env": {"TERM": "xterm-256color", "COLORTERM": "truecolor"}},
        {"env": {"TERM": "xterm-256color", "TEXTUAL_THEME": "nord"}},
    ],
    ids=["size", "resume", "continue", "colours", "a Textual switch"],
)
def test_anything_the_frame_depends_on_changes_the_key(paths: Paths, change: dict) -> None:
    assert _key(paths, **change) != _key(paths)


def test_a_setting_changes_the_key(paths: Paths) -> None:
    before = _key(paths)
    paths.user_settings_file.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings_file.write_text("model:\n  name: another-model\n", encoding="utf-8")
    assert _key(paths) != before


def test_the_draft_changes_the_key(paths: Paths) -> None:
    # The frame shows the prompt's draft: words saved on quit would be missing from an older frame.
    before = _key(paths)
    save_draft(paths, "half a thought")
    assert _key(paths) != before


def test_a_code_change_in_the_tui_changes_the_key(paths: Paths, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = tmp_path / "tui"
    code.mkdir()
    (code / "app.py").write_text("one\n")
    monkeypatch.setattr(frame_cache, "_TUI_DIR", code)
    before = _key(paths)
    (code / "app.py").write_text("two, a little longer\n")
    assert _key(paths) != before


def test_a_frame_is_replayed_only_under_its_own_key(paths: Paths, terminal) -> None:  # type: ignore[no-untyped-def]
    master, slave = terminal
    path = frame_file(paths, 120, 40)
    save(path, "right-key", FRAME)
    assert replay(path, "other-key", slave, input_fd=slave) is None
    assert _read(master) == b""  # nothing written
    assert replay(paths.project_state_dir / "nothing-here.ans", "right-key", slave, input_fd=slave) is None
    assert _read(master) == b""


def test_a_replay_draws_the_frame_and_turns_echo_off_until_undone(paths: Paths, terminal) -> None:  # type: ignore[no-untyped-def]
    master, slave = terminal
    before = termios.tcgetattr(slave)
    assert before[3] & termios.ECHO
    path = frame_file(paths, 120, 40)
    save(path, "k", FRAME)

    replayed = replay(path, "k", slave, input_fd=slave)

    assert replayed is not None
    assert _read(master) == (ENTER + FRAME + DRAWN).encode()
    assert not termios.tcgetattr(slave)[3] & (termios.ECHO | termios.ICANON)  # typed keys wait, unechoed
    replayed.undo()
    assert _read(master).endswith(LEAVE.encode())
    assert termios.tcgetattr(slave)[3] == before[3]
    replayed.undo()  # twice is harmless
    assert _read(master) == b""


def test_after_textual_took_over_undo_leaves_the_terminal_alone(paths: Paths, terminal) -> None:  # type: ignore[no-untyped-def]
    master, slave = terminal
    path = frame_file(paths, 120, 40)
    save(path, "k", FRAME)
    replayed = replay(path, "k", slave, input_fd=slave)
    assert replayed is not None
    _read(master)
    replayed.taken_over = True  # Textual's driver restores the terminal itself at exit
    replayed.undo()
    assert _read(master) == b""


def test_nothing_is_drawn_on_a_pipe(paths: Paths) -> None:
    read_end, write_end = os.pipe()
    try:
        path = frame_file(paths, 120, 40)
        save(path, "k", FRAME)
        assert replay(path, "k", write_end, input_fd=write_end) is None
    finally:
        os.close(read_end)
        os.close(write_end)


def test_the_frame_file_is_private_and_an_identical_frame_is_not_rewritten(paths: Paths) -> None:
    path = frame_file(paths, 120, 40)
    save(path, "k", FRAME)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it shows the draft
    assert path.read_text(encoding="utf-8").splitlines()[0] == f"{frame_cache.FORMAT} k"
    first = path.stat().st_mtime_ns
    os.utime(path, ns=(first - 10**9, first - 10**9))
    save(path, "k", FRAME)
    assert path.stat().st_mtime_ns == first - 10**9
    save(path, "k2", FRAME)
    assert path.read_text(encoding="utf-8").startswith(f"{frame_cache.FORMAT} k2\n")


def test_the_setting_turns_it_off(paths: Paths) -> None:
    paths.user_settings_file.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings_file.write_text("ui:\n  first_frame_cache: false\n", encoding="utf-8")
    settings = load_settings(paths)
    assert prepare(settings, paths, resume=None, continue_latest=False) is None


def test_prepare_keys_the_frame_by_project_and_size(paths: Paths, terminal, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    master, slave = terminal
    monkeypatch.setattr(frame_cache, "terminal_size", lambda fd: (90, 25))
    monkeypatch.setattr(frame_cache, "replay", lambda path, key, fd: None)
    prepared = prepare(load_settings(paths), paths, resume=None, continue_latest=False, fd=slave)
    assert isinstance(prepared, FirstFrame)
    assert prepared.path == paths.project_state_dir / "first-frame" / "90x25.ans"
    assert prepared.replayed is None
