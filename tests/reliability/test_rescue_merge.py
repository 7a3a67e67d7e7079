"""What a full disk kept aside comes back on resume, in its place; the rescue folder is the user's own.

The full disk is the kernel's: the session file is a symlink to ``/dev/full`` (ENOSPC on every write).
A shared temporary directory is attacked as another user would: root (the CI user) can create the
fallback folder's name owned by someone else, or as a symlink to a folder someone else reads.
"""

from __future__ import annotations

import asyncio
import os
import stat
import tempfile
from pathlib import Path

import pytest

from app.core.events import TurnFinished
from app.core.session import rescue
from app.core.session.rescue import keep, rescue_dir, rescue_dirs
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.reliability.helpers import attach, recorded_prompts, settings_for, turn

NOBODY = 65534


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary directory of the test's own standing in for the shared /tmp."""
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    return shared


async def test_rescued_records_come_back_in_place_on_resume_and_the_person_is_told(fake_llm: FakeOpenAIServer, repo: Path, private_tmp: Path) -> None:
    script = attach(fake_llm)
    script.add("main", Reply.text("Answered anyway."), Reply.text("Saved again."), Reply.text("All four are here."))
    paths = Paths.for_cwd(repo)
    runtime = build_runtime(settings_for(fake_llm.base_url), paths)
    record = runtime.recorder.path
    record.parent.mkdir(parents=True, exist_ok=True)
    record.symlink_to("/dev/full")
    try:
        events = await asyncio.wait_for(turn(runtime, "a prompt worth keeping"), 20)
        assert isinstance(events[-1], TurnFinished)
        kept = rescue_dir() / record.name
        assert kept.is_file() and stat.S_IMODE(kept.stat().st_mode) == 0o600
        assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
        assert str(kept).startswith(str(paths.data_dir)), "under the user's data dir, not a shared /tmp name"
        record.unlink()  # room again
        await asyncio.wait_for(turn(runtime, "and now?"), 20)
    finally:
        await runtime.aclose()

    resumed = build_runtime(settings_for(fake_llm.base_url), paths, continue_latest=True)
    try:
        told = [w for w in resumed.warnings if "put back into this session" in w]
        assert told and str(kept) in told[0] and told[0].split()[0].isdigit()
        assert not kept.exists()
        assert recorded_prompts(record) == ["a prompt worth keeping", "and now?"]
        await asyncio.wait_for(turn(resumed, "still all there?"), 20)
        sent = [m["content"] for m in script.requests("main")[-1].conversation]
        assert sent == ["a prompt worth keeping", "Answered anyway.", "and now?", "Saved again.", "still all there?"]
    finally:
        await resumed.aclose()


def _primary_unusable() -> None:
    # A file where the data dir's unsaved/ folder would be: mkdir fails, as on a full or refused disk.
    primary = rescue_dirs()[0]
    primary.parent.mkdir(parents=True, exist_ok=True)
    primary.write_text("not a folder")


def test_the_fallback_in_the_temp_dir_is_private(private_tmp: Path) -> None:
    _primary_unusable()
    kept = keep("s.jsonl", b'{"uuid": "u1"}\n')
    assert kept is not None and kept.parent.parent == private_tmp
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700 and stat.S_IMODE(kept.stat().st_mode) == 0o600


def test_a_fallback_folder_someone_else_made_first_is_refused(private_tmp: Path) -> None:
    _primary_unusable()
    trap = rescue_dirs()[1]
    trap.mkdir(mode=0o777)
    os.chown(trap, NOBODY, NOBODY)
    assert keep("s.jsonl", b'{"uuid": "secret"}\n') is None
    assert list(trap.iterdir()) == []


def test_a_fallback_that_is_a_symlink_is_refused(private_tmp: Path, tmp_path: Path) -> None:
    _primary_unusable()
    elsewhere = tmp_path / "someone-elses"
    elsewhere.mkdir()
    rescue_dirs()[1].symlink_to(elsewhere)
    assert keep("s.jsonl", b'{"uuid": "secret"}\n') is None
    assert list(elsewhere.iterdir()) == []


def test_a_rescue_file_in_someone_elses_folder_is_never_merged(private_tmp: Path, tmp_path: Path) -> None:
    session = tmp_path / "chats" / "s.jsonl"
    session.parent.mkdir()
    session.write_bytes(b'{"uuid": "a", "parentUuid": null}\n')
    planted = rescue_dirs()[1]
    planted.mkdir()
    (planted / "s.jsonl").write_bytes(b'{"uuid": "evil", "parentUuid": "a"}\n')
    os.chown(planted, NOBODY, NOBODY)
    assert rescue.merge_rescued(session) is None
    assert session.read_bytes() == b'{"uuid": "a", "parentUuid": null}\n'
