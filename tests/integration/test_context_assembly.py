"""A directory tree in, the system prompt the server received out: discovery, imports, budget, suffixes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.config import Settings
from app.core.events import ContextAssembled, TurnFailed, TurnFinished
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def _tree(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


@pytest.fixture
def home(hermetic_home: Path) -> Path:
    return hermetic_home


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "outer" / "repo"
    root.mkdir(parents=True)
    (root / ".git").write_text("gitdir: /elsewhere/.git/worktrees/repo\n", encoding="utf-8")  # a worktree
    return root


def _settings(server: FakeOpenAIServer, **context: object) -> Settings:
    settings = Settings()
    settings.model.base_url = server.base_url
    settings.model.name = "fake-model"
    settings.model.api_key = "k"
    settings.model.max_retries = 0
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    settings.sessions.auto_title = False  # its side query would take a reply scripted for the conversation
    for key, value in context.items():
        setattr(settings.context, key, value)
    return settings


async def _turn(settings: Settings, cwd: Path, prompt: str = "hi") -> list:
    runtime = build_runtime(settings, Paths.for_cwd(cwd))
    assert runtime.agent is not None
    events = [event async for event in runtime.agent.run(prompt)]
    await runtime.aclose()
    return events


async def test_blocks_arrive_in_spec_order_with_relative_paths_and_imports(fake_llm: FakeOpenAIServer, repo: Path, home: Path) -> None:
    config_dir = Paths.for_cwd(repo).config_dir
    _tree(config_dir, {"QWEN.md": "global qwen", "AGENTS.md": "global agents"})
    _tree(repo.parent, {"QWEN.md": "outer qwen"})
    _tree(
        repo,
        {
            "QWEN.md": "root qwen, see @docs/style.md and `@not/an/import.md`",
            "docs/style.md": "Use four spaces.",
            "AGENTS.md": "root agents",
            "sub/QWEN.md": "sub qwen",
            ".qwen/QWEN.local.md": "my local notes",
            ".qwen/rules/10-tests.md": "Always run the tests.",
        },
    )
    fake_llm.push(Reply.text("ok"))
    events = await _turn(_settings(fake_llm), repo / "sub")
    assert isinstance(events[-1], TurnFinished)
    system = fake_llm.requests[0].messages[0]["content"]
    markers = [line for line in system.splitlines() if line.startswith("--- Context from: ")]
    assert markers == [
        f"--- Context from: {os.path.relpath(config_dir / 'QWEN.md', repo / 'sub')} ---",
        "--- Context from: ../../QWEN.md ---",
        "--- Context from: ../QWEN.md ---",
        "--- Context from: QWEN.md ---",
        f"--- Context from: {os.path.relpath(config_dir / 'AGENTS.md', repo / 'sub')} ---",
        "--- Context from: ../AGENTS.md ---",
        "--- Context from: ../.qwen/QWEN.local.md ---",
        "--- Context from: ../.qwen/rules/10-tests.md ---",
    ]
    assert "<!-- Imported from: docs/style.md -->\nUse four spaces.\n<!-- End of import from: docs/style.md -->" in system
    assert "`@not/an/import.md`" in system
    assert "\n\n---\n\n--- Context from: " in system, "the user memory suffix follows the separator"
    assert system.count("\n\n---\n\n") == 2, "the user-memory suffix, then the auto-memory section after the files"
    assert system.index("--- End of Context from: ../.qwen/rules/10-tests.md ---") < system.rindex("\n\n---\n\n")
    assembled = [e for e in events if isinstance(e, ContextAssembled)][0].request
    assert assembled is not None and assembled.system_text == system
    names = [p.name for p in assembled.parts_of("instruction_file")]
    assert names[1:4] == ["../../QWEN.md", "../QWEN.md", "QWEN.md"]


async def test_append_system_prompt_comes_after_the_instructions(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    _tree(repo, {"QWEN.md": "project rules"})
    settings = _settings(fake_llm)
    settings.append_system_prompt = "  Answer in French.  "
    fake_llm.push(Reply.text("ok"))
    await _turn(settings, repo)
    system = fake_llm.requests[0].messages[0]["content"]
    memory_at = system.index("--- Context from: QWEN.md ---")
    append_at = system.index("\n\n---\n\nAnswer in French.")
    assert memory_at < append_at
    assert system.index("# Git status") > append_at if "# Git status" in system else True


async def test_no_instruction_files_means_no_lone_separator(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    await _turn(_settings(fake_llm), repo)
    system = fake_llm.requests[0].messages[0]["content"]
    assert "--- Context from:" not in system
    assert "\n\n---\n\n\n" not in system and not system.rstrip().endswith("---")


async def test_an_oversized_file_is_truncated_visibly(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    big = "".join(f"line {i:05d} of the big instruction file\n" for i in range(3000))
    _tree(repo, {"QWEN.md": big, "AGENTS.md": "small agents file"})
    fake_llm.push(Reply.text("ok"))
    settings = _settings(fake_llm, per_file_chars=4000, total_chars=60_000)
    runtime = build_runtime(settings, Paths.for_cwd(repo))
    assert runtime.agent is not None
    [event async for event in runtime.agent.run("hi")]
    system = fake_llm.requests[0].messages[0]["content"]
    assert "[… QWEN.md is cut here to fit the instruction budget: kept lines 1-" in system
    assert "line 00000" in system and "line 02999" in system, "head and tail are kept"
    assert "line 01500" not in system
    assert "[Instruction files cut]" in system
    assert "small agents file" in system
    rows = {r.name: r for r in runtime.assembler.instruction_rows()}
    assert rows["QWEN.md"].status == "TRUNCATED" and rows["QWEN.md"].raw_chars == len(big.rstrip())
    assert rows["AGENTS.md"].status == "OK"
    await runtime.aclose()


def _real_agents_md(chars: int) -> str:
    """An AGENTS.md shaped like real ones: headed sections of rules, one mandatory section near the end."""
    sections: list[str] = []
    index = 0
    while sum(len(s) + 2 for s in sections) < chars - 400:
        rules = "\n".join(f"- Rule {index}.{n}: run the checks before you push; never skip a failing test." for n in range(8))
        sections.append(f"## Section {index}\n\n{rules}")
        index += 1
    sections.append("## Public API compatibility\n\n- Never change a public signature without a deprecation cycle.")
    return "# Repository guidelines\n\n" + "\n\n".join(sections) + "\n"


@pytest.mark.parametrize("window", [128_000, 32_768])
async def test_a_35k_agents_md_is_whole_on_128k_and_cut_at_a_line_on_32k(fake_llm: FakeOpenAIServer, repo: Path, window: int) -> None:
    agents = _real_agents_md(35_000)
    assert 34_000 < len(agents) < 36_000
    _tree(repo, {"AGENTS.md": agents})
    settings = _settings(fake_llm)
    settings.model.context_window = window
    fake_llm.push(Reply.text("ok"))
    await _turn(settings, repo)
    system = fake_llm.requests[0].messages[0]["content"]
    block = system[system.index("--- Context from: AGENTS.md ---\n") : system.index("\n--- End of Context from: AGENTS.md ---")]
    body = block.split("\n", 1)[1]
    if window == 128_000:
        assert body == agents.strip(), "sent whole, byte for byte"
        assert "cut here" not in system and "[Instruction files cut]" not in system
        return
    assert len(body) <= 20_000
    head, marker, tail = body.split("\n\n[… ")[0], body.split("\n\n[… ")[1].split("]\n\n")[0], body.split("]\n\n", 1)[1]
    lines = agents.split("\n")
    assert head == "\n".join(lines[: len(head.split("\n"))]), "the head is whole lines from the start"
    assert agents.rstrip().endswith(tail) and tail.split("\n")[0] in lines, "the tail starts at a line boundary"
    assert marker.startswith("AGENTS.md is cut here to fit the instruction budget: kept lines 1-")
    assert "read_file on AGENTS.md (offset " in marker
    assert "Public API compatibility" in tail, "the last section survives the cut"
    assert "[Instruction files cut]" in system


async def test_bad_inputs_are_reported_and_never_stop_the_turn(fake_llm: FakeOpenAIServer, repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("top secret", encoding="utf-8")
    _tree(
        repo,
        {
            "QWEN.md": f"@../../secret.md and @https://example.com/x.md and @{outside} and @missing.md",
            "AGENTS.md": b"caf\xe9 latin-1 bytes",
            "sub/QWEN.md/placeholder": "a directory named QWEN.md",
        },
    )
    (repo / "loop").symlink_to(repo / "loop")
    fake_llm.push(Reply.text("still fine"))
    settings = _settings(fake_llm)
    runtime = build_runtime(settings, Paths.for_cwd(repo / "sub"))
    assert runtime.agent is not None
    events = [event async for event in runtime.agent.run("hi")]
    assert isinstance(events[-1], TurnFinished)
    system = fake_llm.requests[0].messages[0]["content"]
    assert "top secret" not in system
    assert "<!-- Import failed: ../../secret.md - Path traversal attempt -->" in system
    assert "<!-- Import failed: https://example.com/x.md - Path traversal attempt -->" in system
    assert "@missing.md" in system, "a missing file stays literal text"
    assert "caf\ufffd latin-1 bytes" in system
    problems = "\n".join(runtime.warnings)
    assert "AGENTS.md" in problems and "UTF-8" in problems
    await runtime.aclose()


async def test_system_md_replaces_the_builtin_prompt_and_a_missing_one_fails_clearly(fake_llm: FakeOpenAIServer, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(repo, {".qwen/system.md": "You are a pirate.", "QWEN.md": "project rules"})
    monkeypatch.setenv("AGENTCTX_SYSTEM_MD", "1")
    fake_llm.push(Reply.text("arr"))
    await _turn(_settings(fake_llm), repo)
    system = fake_llm.requests[0].messages[0]["content"]
    assert system.startswith("You are a pirate.\n\n---\n\n--- Context from: QWEN.md ---")
    monkeypatch.setenv("AGENTCTX_SYSTEM_MD", str(repo / "nope.md"))
    events = await _turn(_settings(fake_llm), repo)
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and failed.message == f"missing system prompt file '{repo / 'nope.md'}'"
    assert len(fake_llm.requests) == 1, "nothing is sent without the prompt the user asked for"


async def test_write_system_md_writes_the_base_prompt(fake_llm: FakeOpenAIServer, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTCTX_WRITE_SYSTEM_MD", "1")
    _tree(repo, {"QWEN.md": "project rules"})
    fake_llm.push(Reply.text("ok"))
    await _turn(_settings(fake_llm), repo)
    written = (repo / ".qwen" / "system.md").read_text(encoding="utf-8")
    system = fake_llm.requests[0].messages[0]["content"]
    assert system.startswith(written)
    assert "project rules" not in written, "the write-out is the base prompt, before the suffixes"


async def test_the_prelude_opens_the_messages_and_history_follows(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    await _turn(_settings(fake_llm), repo, "first words")
    messages = fake_llm.requests[0].messages
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"].startswith("<system-reminder>") and f"Working directory: {repo}" in messages[1]["content"]
    assert messages[-1]["content"] == "first words"


async def test_custom_file_names_from_settings(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    _tree(repo, {"CLAUDE.md": "claude rules", "QWEN.md": "qwen rules"})
    fake_llm.push(Reply.text("ok"))
    await _turn(_settings(fake_llm, file_name=["CLAUDE.md"]), repo)
    system = fake_llm.requests[0].messages[0]["content"]
    assert "claude rules" in system and "qwen rules" not in system


async def test_a_message_larger_than_the_window_is_cut_in_the_view_and_the_session_stays_usable(fake_llm: FakeOpenAIServer, repo: Path, home: Path) -> None:
    from app.context.compaction.slimming import MAX_MESSAGE_SHARE
    from app.core.session.resume import load_session

    settings = _settings(fake_llm)
    settings.model.context_window = 8_000
    settings.compaction.auto = False  # the view, and the hard limit's cut when the view alone is still too big
    pasted = "log line\n" * 9_000 + "THE LAST LINE"  # ~81,000 chars: about 20,000 tokens in an 8,000-token window
    fake_llm.push(Reply.text("That log ends with THE LAST LINE."), Reply.text("Still here."))
    runtime = build_runtime(settings, Paths.for_cwd(repo))
    assert runtime.agent is not None
    first = [event async for event in runtime.agent.run(pasted)]
    second = [event async for event in runtime.agent.run("and now?")]
    await runtime.aclose()
    assert first[-1].kind == second[-1].kind == "turn_finished"
    for request in fake_llm.requests:
        [sent] = [m["content"] for m in request.body["messages"] if m["role"] == "user" and "log line" in str(m["content"])]
        assert len(sent) <= 8_000 * 4 * MAX_MESSAGE_SHARE
        assert sent.startswith("log line") and sent.endswith("THE LAST LINE") and "characters cut from the middle" in sent
    loaded = load_session(runtime.recorder.path)
    assert any(r.message is not None and r.message.content == pasted for r in loaded.records), "the record keeps every character"
