"""`agentctx-tui sessions list|search|delete` and headless resume, as a user runs them (subprocesses)."""

from __future__ import annotations

import json
from pathlib import Path

from app.core.history import Message, ToolCall
from app.core.session.display import human_size
from app.core.session.recorder import SessionRecorder
from app.paths import Paths
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.test_headless_cli import cli
from tests.workspace import Workspace

FIRST = "aaaaaaaa-1111-4111-8111-111111111111"
SECOND = "bbbbbbbb-2222-4222-8222-222222222222"


WORKSPACE = Workspace(name="repo", git=True, files={".git/HEAD": "ref: refs/heads/feature/search\n"})


def _record(workspace: Path, session_id: str, prompt: str, answer: str, *, title: str | None = None) -> Path:
    paths = Paths.for_cwd(workspace)
    rec = SessionRecorder(paths.chats_dir, session_id=session_id, cwd=workspace, version="test", git_branch="feature/search")
    rec.append_message(Message.user(prompt))
    rec.append_message(Message(role="assistant", content=answer))
    if title:
        rec.append_title(title, "manual")
    return rec.path


def test_list_shows_title_size_and_branch(workspace: Path) -> None:
    path = _record(workspace, FIRST, "fix the tokenizer", "Done.", title="Tokenizer fix")
    text = cli(["sessions", "list"], cwd=workspace)
    assert text.returncode == 0, text.stderr
    line = text.stdout.strip()
    assert line.startswith(FIRST) and "feature/search" in line and line.endswith("Tokenizer fix")
    assert human_size(path.stat().st_size) in line

    [row] = json.loads(cli(["sessions", "list", "--json"], cwd=workspace).stdout)
    assert row["title"] == "Tokenizer fix" and row["title_source"] == "manual"
    assert row["first_prompt"] == "fix the tokenizer"
    assert row["size"] == path.stat().st_size and row["git_branch"] == "feature/search"


def test_search_finds_titles_prompts_and_answers(workspace: Path) -> None:
    _record(workspace, FIRST, "fix the tokenizer", "The lexer drops tabs.", title="Tokenizer fix")
    _record(workspace, SECOND, "write the changelog", "Mentioned the LEXER change.")
    result = cli(["sessions", "search", "lexer"], cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert FIRST in result.stdout and SECOND in result.stdout
    assert "message: The lexer drops tabs." in result.stdout

    hits = json.loads(cli(["sessions", "search", "tokenizer", "--json"], cwd=workspace).stdout)
    assert [(h["session_id"], h["match"]["where"]) for h in hits] == [(FIRST, "title")]
    assert "No session mentions" in cli(["sessions", "search", "nothing like this"], cwd=workspace).stdout


def test_delete_previews_without_yes_and_deletes_with_it(workspace: Path) -> None:
    path = _record(workspace, FIRST, "fix the tokenizer", "Done.", title="Tokenizer fix")
    sidecar = path.with_name(f"{FIRST}.context.json")
    sidecar.write_text("{}", encoding="utf-8")

    preview = cli(["sessions", "delete", FIRST[:8]], cwd=workspace)
    assert preview.returncode == 0, preview.stderr
    assert "“Tokenizer fix”" in preview.stdout and "Nothing was deleted" in preview.stdout
    assert str(path) in preview.stdout and str(sidecar) in preview.stdout
    assert path.exists() and sidecar.exists()

    done = cli(["sessions", "delete", FIRST[:8], "--yes"], cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert not path.exists() and not sidecar.exists()
    assert f"Deleted {path}" in done.stdout

    missing = cli(["sessions", "delete", FIRST[:8], "--yes"], cwd=workspace)
    assert missing.returncode == 2 and "no session matches" in missing.stderr


def test_headless_resume_keeps_working_with_titles_and_stored_once_results(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    paths = Paths.for_cwd(workspace)
    rec = SessionRecorder(paths.chats_dir, session_id=FIRST, cwd=workspace, version="test")
    big = "line of a long file\n" * 200
    rec.append_message(Message.user("read it twice"))
    for call_id in ("c1", "c2"):
        call = ToolCall(call_id, "read_file", '{"path": "long.txt"}')
        rec.append_message(Message(role="assistant", tool_calls=[call]))
        rec.append_message(Message.tool_result(call, big))
    rec.append_message(Message(role="assistant", content="Same both times."))
    rec.append_title("Reading twice", "auto")
    assert rec.path.read_text(encoding="utf-8").count("line of a long file") == 200  # stored once

    fake_llm.push(Reply.text("Still the same."))
    result = cli(["-p", "and now?", "--resume", FIRST[:8], "--output-format", "json"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["session_id"] == FIRST
    sent = fake_llm.requests[-1].conversation
    assert [m["content"] for m in sent if m["role"] == "tool"] == [big, big]
    assert sent[-1] == {"role": "user", "content": "and now?"}
    assert len(fake_llm.requests) == 1, "a headless run asks for no title"
    listed = json.loads(cli(["sessions", "list", "--json"], cwd=workspace).stdout)
    assert listed[0]["title"] == "Reading twice"
