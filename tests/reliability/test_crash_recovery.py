"""kill -9 at the worst moments, then restart: nothing lost, nothing half-written, the session goes on.

Each scenario starts the agent in a subprocess against the fake server of this
process, waits for the moment (a request arrived, a file appeared), kills it with
SIGKILL, and restarts the way a user would (``--continue``), in this process:
the session resumes, every memory file is whole, indexes are current, a stale
lock of the dead process is cleared, compaction records point at real entries,
and a next turn works.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from app.config import Settings
from app.context.memory import MemoryScope
from app.context.memory.paths import memory_paths
from app.core.events import TurnFinished
from app.core.history import Message
from app.core.session.resume import load_session
from app.paths import Paths
from app.runtime import Runtime, build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.reliability.helpers import Script, attach, bytes_lost, recorded_prompts, settings_for, turn
from tests.reliability.processes import (
    Driver,
    check_indexes_current,
    check_memory_files,
    check_record,
    lock_is_stale,
    session_files,
    wait_until,
)
from tests.reliability.report import BYTES_LOST

pytestmark = [pytest.mark.soak, pytest.mark.timeout(180)]

MEMORY = "---\nname: {name}\ndescription: {description}\ntype: feedback\n---\n{body}\n"
SUMMARY = (
    "<analysis>notes</analysis>\n<state_snapshot><primary_request_and_intent>carry on</primary_request_and_intent>"
    "<current_work>seeded work</current_work><next_step>continue</next_step></state_snapshot>"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "README.md").write_text("# Project\n", encoding="utf-8")
    return root


def _settings(server: FakeOpenAIServer, **memory: object) -> Settings:
    settings = settings_for(server.base_url, **memory)
    settings.approval_mode = "yolo"
    settings.compaction.auto_delay_seconds = 0
    settings.compaction.quality_check = False
    return settings


async def _restart_and_go_on(server: FakeOpenAIServer, script: Script, repo: Path, prompts: list[str], record_property, **memory: object) -> Runtime:  # type: ignore[no-untyped-def]
    """Restart with --continue: checks on the record and the memory, then one more turn that must work."""
    paths = Paths.for_cwd(repo)
    [path] = session_files(paths.chats_dir)
    warnings = check_record(path)
    lost = bytes_lost(prompts, path)
    record_property(BYTES_LOST, lost)
    assert lost == 0, recorded_prompts(path)
    runtime = build_runtime(_settings(server, **memory), paths, continue_latest=True)
    assert runtime.session_id == path.stem and runtime.agent is not None
    assert warnings == [w for w in runtime.warnings if w in warnings], "the load warnings reach the person"
    resumed = [m.content for m in runtime.resumed_messages]
    assert all(p in resumed for p in prompts), "the prompts are in the resumed conversation"
    check_memory_files(runtime.memory.mem)
    check_indexes_current(runtime.memory.mem)
    script.add("main", Reply.text("Back where we were."))
    events = await turn(runtime, "are we back?")
    assert isinstance(events[-1], TurnFinished), events[-1]
    check_record(path)
    return runtime


async def test_killed_while_the_answer_streams(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    script = attach(fake_llm).add("main", Reply.stall(60, after=["Half of the answer"]))
    driver = Driver(fake_llm, repo, ["--prompt", "explain the build"]).start()
    wait_until(lambda: script.count("main") == 1, what="the request reached the server")
    driver.kill()
    runtime = await _restart_and_go_on(fake_llm, script, repo, ["explain the build"], record_property)
    await runtime.aclose()


async def test_killed_while_a_slow_shell_command_runs(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    pid_file = repo / "shell.pid"
    script = attach(fake_llm).add("main", Reply.tool_calls([("s1", "run_shell_command", {"command": f"echo $$ > {pid_file.name}; sleep 60"})]))
    driver = Driver(fake_llm, repo, ["--prompt", "run the slow thing", "--yolo"]).start()
    wait_until(lambda: pid_file.exists() and pid_file.read_text().strip(), what="the command started")
    try:
        driver.kill()
        runtime = await _restart_and_go_on(fake_llm, script, repo, ["run the slow thing"], record_property)
        loaded = load_session(runtime.recorder.path)
        [result] = [m for m in loaded.messages if m.role == "tool"]
        assert result.tool_call_id == "s1" and result.is_error and "never finished" in result.content
        assert any("had no result" in w for w in loaded.warnings)
        await runtime.aclose()
    finally:
        try:  # the command's own process group outlives the killed agent; end it here
            os.killpg(int(pid_file.read_text().strip()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


async def test_killed_during_a_huge_write(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    content = "0123456789abcdef" * (2 * 1024 * 1024)  # 32 MiB
    # An answer this large is past the default caps on one event-stream line and one answer, by design.
    settings_file = Paths.for_cwd(repo).user_settings_file
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text("model:\n  max_line_bytes: 64000000\n  max_answer_chars: 64000000\n", encoding="utf-8")
    script = attach(fake_llm).add("main", Reply.tool_calls([("w1", "write_file", {"path": "big.txt", "content": content})]))
    driver = Driver(fake_llm, repo, ["--prompt", "write the big file", "--yolo"]).start()
    wait_until(lambda: any(p.name.startswith(".big.txt.") for p in repo.iterdir()) or (repo / "big.txt").exists(), timeout=60, what="the write began")
    driver.kill()
    target = repo / "big.txt"
    assert not target.exists() or target.stat().st_size == len(content), "the file is absent or whole, never half-written"
    runtime = await _restart_and_go_on(fake_llm, script, repo, ["write the big file"], record_property)
    await runtime.aclose()


async def test_a_torn_last_line_is_skipped_with_a_warning(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    # A SIGKILL during write() leaves a short write; here the tear is made exactly, in the record of a real run.
    script = attach(fake_llm).add("main", Reply.text("First answer."), Reply.stall(60))
    first = Driver(fake_llm, repo, ["--prompt", "first question"]).start()
    first.finish()
    second = Driver(fake_llm, repo, ["--continue", "--prompt", "second question"]).start()
    wait_until(lambda: script.count("main") == 2, what="the second request reached the server")
    second.kill()
    [path] = session_files(Paths.for_cwd(repo).chats_dir)
    data = path.read_bytes()
    last_line = data[: -1].rsplit(b"\n", 1)[1]
    path.write_bytes(data + last_line[: len(last_line) // 2])  # half of a record, no newline
    warnings = load_session(path).warnings
    assert len(warnings) == 1 and "incomplete line, cut off while it was being written" in warnings[0]
    runtime = await _restart_and_go_on(fake_llm, script, repo, ["first question", "second question"], record_property)
    assert warnings[0] in runtime.warnings
    # The restart ended the torn line before appending: still the one skipped line, and the new records load.
    [after] = load_session(path).warnings
    assert after.split(" could not be read")[0] == warnings[0].split(" could not be read")[0]
    assert recorded_prompts(path) == ["first question", "second question", "are we back?"]
    await runtime.aclose()


async def test_killed_during_extraction(fake_llm: FakeOpenAIServer, repo: Path, hermetic_home: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    saved = memory_paths(Paths.for_cwd(repo)).project_root / "feedback" / "small-commits.md"
    memory = MEMORY.format(name="small commits", description="one change per commit", body="One change per commit.")
    script = attach(fake_llm).add("main", Reply.text("Noted."))
    script.add("extract", Reply.tool_calls([("m1", "write_file", {"path": str(saved), "content": memory})]), Reply.stall(60))
    driver = Driver(fake_llm, repo, ["--prompt", "I like small commits", "--extract"]).start()
    wait_until(lambda: script.count("extract") == 2, what="the memory was written and the agent asked again")
    driver.kill()
    assert saved.read_text(encoding="utf-8") == memory
    # The index was to be rebuilt when the extraction ended, which it never did: the restart does it.
    script.add("extract", Reply.text("Already saved."))
    runtime = await _restart_and_go_on(fake_llm, script, repo, ["I like small commits"], record_property, extraction=True)
    assert "small commits" in runtime.memory.mem.index_file(MemoryScope.PROJECT).read_text(encoding="utf-8")
    await runtime.memory.drain(10)
    transcript = script.requests("extract")[-1].messages[-1]["content"]
    assert "I like small commits" in transcript, "the cursor had not moved: the interrupted part is read again"
    await runtime.aclose()


async def test_killed_while_dreaming_leaves_a_stale_lock_that_is_cleared(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    script = attach(fake_llm).add("main", Reply.text("Hello.")).add("dream", Reply.stall(60))
    driver = Driver(fake_llm, repo, ["--prompt", "hello", "--then", "dream"]).start()
    wait_until(lambda: script.count("dream") == 1, what="the dream agent asked the model")
    driver.kill()
    mem = memory_paths(Paths.for_cwd(repo))
    assert mem.lock_file.read_text().strip() == str(driver.pid) and lock_is_stale(mem)
    runtime = await _restart_and_go_on(fake_llm, script, repo, ["hello"], record_property)
    script.add("dream", Reply.text("Nothing to merge."))
    assert runtime.memory.dream_now()
    await runtime.memory.drain(10)
    assert runtime.memory.dream.state == "done", runtime.memory.dream.detail
    assert script.count("dream") == 2 and not mem.lock_file.exists()
    await runtime.aclose()


async def test_killed_during_an_index_rebuild(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    script = attach(fake_llm).add("main", Reply.text("Hello."))
    driver = Driver(fake_llm, repo, ["--prompt", "hello", "--then", "index"]).start()
    mem = memory_paths(Paths.for_cwd(repo))
    wait_until(lambda: mem.index_file(MemoryScope.PROJECT).exists() and len(list((mem.project_root / "project").glob("*.md"))) >= 40, what="forty memories")
    driver.kill()
    lines = mem.index_file(MemoryScope.PROJECT).read_text(encoding="utf-8").splitlines()
    assert lines and all(line.startswith("- [fact ") and " \u2014 the fact number " in line for line in lines), "the index is whole"
    count = check_memory_files(mem)
    runtime = await _restart_and_go_on(fake_llm, script, repo, ["hello"], record_property)
    assert len(mem.index_file(MemoryScope.PROJECT).read_text(encoding="utf-8").splitlines()) == count
    await runtime.aclose()


async def test_killed_while_summarizing_for_compaction(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    script = attach(fake_llm).add("summary", Reply.stall(60))
    driver = Driver(fake_llm, repo, ["--seed", "40", "--prompt", "go on with the seeded work"]).start()
    wait_until(lambda: script.count("summary") == 1, what="the summarizer was asked")
    driver.kill()
    [path] = session_files(Paths.for_cwd(repo).chats_dir)
    loaded = load_session(path)
    assert not [r for r in loaded.records if r.subtype == "chat_compression"], "no checkpoint without a summary"
    assert len([m for m in loaded.messages if m.role == "user"]) == 41
    script.add("summary", Reply.text(SUMMARY))
    runtime = await _restart_and_go_on(fake_llm, script, repo, ["go on with the seeded work"], record_property)
    await runtime.aclose()


async def test_killed_right_after_compacting(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    script = attach(fake_llm).add("summary", Reply.text(SUMMARY)).add("main", Reply.stall(60))
    driver = Driver(fake_llm, repo, ["--seed", "40", "--prompt", "go on with the seeded work"]).start()
    wait_until(lambda: script.count("main") == 1, what="the request after the compaction was sent")
    driver.kill()
    [path] = session_files(Paths.for_cwd(repo).chats_dir)
    loaded = load_session(path)
    [checkpoint] = [r for r in loaded.records if r.subtype == "chat_compression"]
    assert loaded.messages[0].content.startswith("<state_snapshot>") and loaded.messages[-1] == Message.user("go on with the seeded work")
    runtime = await _restart_and_go_on(fake_llm, script, repo, ["go on with the seeded work"], record_property)
    assert runtime.resumed_messages[0].content.startswith("<state_snapshot>"), "the resumed session starts from the checkpoint"
    await runtime.aclose()
