"""A resumed session's messages never end up in a repr (Textual's @work repr's each argument it is given)."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.core.history import Message
from app.core.session.recorder import SessionRecorder
from app.paths import Paths
from app.runtime import build_runtime


def test_the_runtime_repr_is_short_whatever_the_session_holds(tmp_path: Path) -> None:
    paths = Paths.for_cwd(tmp_path)
    recorder = SessionRecorder(paths.chats_dir, cwd=tmp_path, version="t")
    for n in range(50):
        recorder.append_message(Message.user(f"question {n} " + "x" * 2_000))
    settings = Settings()
    settings.model.base_url = "http://127.0.0.1:9/v1"
    runtime = build_runtime(settings, paths, continue_latest=True)
    assert len(runtime.resumed_messages) == 50
    text = repr(runtime)
    assert len(text) < 200 and "question" not in text
    assert recorder.session_id in text and "50" in text
