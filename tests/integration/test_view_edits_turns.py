"""Hand edits of the view in whole turns through the local server: the next request holds exactly the change,
a pinned part outlives a summary, an edited summary is what is sent (and summarized again), and --resume
rebuilds the same view from the view_edit records."""

from __future__ import annotations

import json
from pathlib import Path

from app.config import load_settings
from app.context.report import render_list
from app.core.request import message_kind
from app.context.view_edits import SUBTYPE_VIEW_EDIT, commit, part_id
from app.core.history import Message
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.helpers import run_turn

LOG = "LOGLINE-7f3 " * 1500
NOTES = "PINNED-NOTES: the staging database is db-staging-4, never prod.\n" * 20
SUMMARY = "<state_snapshot><current_work>reading logs</current_work><next_step>ORIGINAL-NEXT-STEP</next_step></state_snapshot>"
EDITED = "<state_snapshot><current_work>reading logs</current_work><next_step>HAND-WRITTEN-NEXT-STEP</next_step></state_snapshot>"


def _settings(fake_llm: FakeOpenAIServer, repo: Path):  # type: ignore[no-untyped-def]
    paths = Paths.for_cwd(repo)
    paths.user_settings_file.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings_file.write_text(
        f"model:\n  base_url: {fake_llm.base_url}\n  name: fake-model\n  api_key: k\n  context_window: 200000\n  max_retries: 0\n"
        "compaction:\n  auto_delay_seconds: 0\n  quality_check: false\n"
        "memory:\n  enabled: false\n"
        "sessions:\n  auto_title: false\n",  # its side query would take a reply scripted for the conversation
        encoding="utf-8",
    )
    return load_settings(paths, env={}), paths


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "big.log").write_text(LOG, encoding="utf-8")
    (repo / "notes.md").write_text(NOTES, encoding="utf-8")
    return repo


async def _read_both(fake_llm: FakeOpenAIServer, runtime) -> tuple[Message, Message]:  # type: ignore[no-untyped-def]
    fake_llm.push(
        Reply.tool_calls([("call_log", "read_file", {"path": "big.log"}), ("call_notes", "read_file", {"path": "notes.md"})]),
        Reply.text("The log is noise; the notes matter."),
    )
    await run_turn(runtime.agent, "read big.log and notes.md")
    results = {m.tool_call_id: m for m in runtime.agent.history if m.role == "tool"}
    return results["call_log"], results["call_notes"]


def _sent(fake_llm: FakeOpenAIServer, index: int = -1) -> str:
    return json.dumps(fake_llm.requests[index].body["messages"], ensure_ascii=False)


async def test_a_dropped_part_is_absent_from_the_next_request_and_restore_brings_it_back(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    settings, paths = _settings(fake_llm, _repo(tmp_path))
    runtime = build_runtime(settings, paths)
    log, notes = await _read_both(fake_llm, runtime)
    assert "LOGLINE-7f3" in _sent(fake_llm), "the log was sent before the drop"
    dropped = part_id(log)
    commit(runtime.assembler.view_edits, runtime.recorder, "drop", dropped)

    fake_llm.push(Reply.text("ok"))
    await run_turn(runtime.agent, "what now?")
    sent = fake_llm.requests[-1].body["messages"]
    assert "LOGLINE-7f3" not in _sent(fake_llm)
    [result] = [m for m in sent if m.get("tool_call_id") == "call_log"]
    assert dropped in result["content"] and "dropped from the context by the user" in result["content"]
    assert "PINNED-NOTES" in _sent(fake_llm), "only the dropped part changed"
    assert "LOGLINE-7f3" in log.content, "the history keeps it"
    records = [json.loads(line) for line in runtime.recorder.path.read_text(encoding="utf-8").splitlines()]
    assert [r["systemPayload"] for r in records if r.get("subtype") == SUBTYPE_VIEW_EDIT] == [{"action": "drop", "part": dropped}]

    commit(runtime.assembler.view_edits, runtime.recorder, "restore", dropped)
    fake_llm.push(Reply.text("ok again"))
    await run_turn(runtime.agent, "and the log?")
    assert "LOGLINE-7f3" in _sent(fake_llm)


async def test_resume_rebuilds_the_same_view(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    settings, paths = _settings(fake_llm, _repo(tmp_path))
    runtime = build_runtime(settings, paths)
    log, notes = await _read_both(fake_llm, runtime)
    commit(runtime.assembler.view_edits, runtime.recorder, "drop", part_id(log))
    commit(runtime.assembler.view_edits, runtime.recorder, "pin", part_id(notes))
    tools = runtime.tools.schemas()
    before = runtime.assembler.assemble(list(runtime.agent.history), tools)

    resumed = build_runtime(settings, paths, resume=runtime.session_id)
    assert resumed.assembler.view_edits == runtime.assembler.view_edits
    after = resumed.assembler.assemble(list(resumed.resumed_messages), tools)
    assert [m.to_openai() for m in after.messages] == [m.to_openai() for m in before.messages]
    assert [(p.part_id, p.edit) for p in after.parts if p.edit] == [(part_id(log), "dropped"), (part_id(notes), "pinned")]
    fake_llm.push(Reply.text("resumed"))
    await run_turn(resumed.agent, "go on")
    assert "LOGLINE-7f3" not in _sent(fake_llm) and "PINNED-NOTES" in _sent(fake_llm)


async def test_a_pinned_part_outlives_a_summary_and_an_edited_summary_is_sent_and_summarized(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    settings, paths = _settings(fake_llm, _repo(tmp_path))
    runtime = build_runtime(settings, paths)
    agent = runtime.agent
    for i in range(6):  # an earlier conversation worth summarizing
        agent.history += [Message.user(f"question {i}"), Message(role="assistant", content=f"answer {i} " + "words " * 2000)]
    log, notes = await _read_both(fake_llm, runtime)
    commit(runtime.assembler.view_edits, runtime.recorder, "pin", part_id(notes))
    commit(runtime.assembler.view_edits, runtime.recorder, "drop", part_id(log))
    fake_llm.push(Reply.text("More."))
    await run_turn(agent, "anything else?")

    fake_llm.push(Reply.text(SUMMARY))
    events = [e async for e in agent.compact("the notes")]
    assert any(e.kind == "compaction_finished" and e.ok for e in events), events
    summarizer = _sent(fake_llm)
    assert "LOGLINE-7f3" not in summarizer, "the summarizer reads the view: a dropped part stays dropped"
    assert notes in agent.history, "the pinned result is re-attached verbatim"

    fake_llm.push(Reply.text("ok"))
    await run_turn(agent, "continue")
    sent = fake_llm.requests[-1].body["messages"]
    [result] = [m for m in sent if m.get("tool_call_id") == "call_notes"]
    assert result["content"] == notes.content and "PINNED-NOTES" in notes.content
    assert "ORIGINAL-NEXT-STEP" in _sent(fake_llm)
    report = runtime.assembler.report(runtime.assembler.last_request, source="run")
    assert [(r.name, r.detail) for r in report.edited] == [(part_id(notes), "pinned")]
    assert f"Pinned (kept through compaction): {part_id(notes)} read_file result (" in render_list(report), "/context lists it"

    [summary] = [m for m in agent.history if message_kind(m) == "summary"]
    commit(runtime.assembler.view_edits, runtime.recorder, "replace", part_id(summary), EDITED)
    fake_llm.push(Reply.text("ok, hand-written"))
    await run_turn(agent, "continue again")
    assert "HAND-WRITTEN-NEXT-STEP" in _sent(fake_llm) and "ORIGINAL-NEXT-STEP" not in _sent(fake_llm)

    # /compress with a focus, rerun from the edited summary: the summarizer reads the edited text.
    for i in range(6):
        agent.history += [Message.user(f"later question {i}"), Message(role="assistant", content=f"later answer {i} " + "words " * 2000)]
    fake_llm.push(Reply.text(SUMMARY.replace("ORIGINAL", "SECOND")))
    events = [e async for e in agent.compact("the database")]
    assert any(e.kind == "compaction_finished" and e.ok for e in events)
    assert "HAND-WRITTEN-NEXT-STEP" in _sent(fake_llm) and "ORIGINAL-NEXT-STEP" not in _sent(fake_llm)
    assert notes in agent.history, "still pinned through a second summary"

    resumed = build_runtime(settings, paths, resume=runtime.session_id)
    assert [m.content for m in resumed.resumed_messages] == [m.content for m in agent.history]
