"""compaction.pct from a settings file means what it says: on a 1 M window with 0.5, compaction starts at 500 K."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import load_settings
from app.core.events import CompactionStarted, ContextWarning
from app.core.history import Message
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply

SUMMARY = "<state_snapshot><current_work>x</current_work><next_step>go on</next_step></state_snapshot>"


def _runtime(fake_llm: FakeOpenAIServer, repo: Path, tokens: int):  # type: ignore[no-untyped-def]
    paths = Paths.for_cwd(repo)
    paths.user_settings_file.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings_file.write_text(
        f"model:\n  base_url: {fake_llm.base_url}\n  name: fake-model\n  api_key: k\n  context_window: 1000000\n  max_retries: 0\n"
        "compaction:\n  pct: 0.5\n  auto_delay_seconds: 0\n  quality_check: false\n"
        "memory:\n  enabled: false\n"
        "sessions:\n  auto_title: false\n",
        encoding="utf-8",
    )
    settings = load_settings(paths, env={})
    assert settings.compaction.pct == 0.5 and settings.compaction.pct_source == str(paths.user_settings_file)
    runtime = build_runtime(settings, paths)
    assert runtime.agent is not None
    # The history alone is `tokens` by our count (4 chars a token), in 40 exchanges.
    for i in range(40):
        runtime.agent.history += [Message.user(f"q{i}"), Message(role="assistant", content="w " * (tokens // 40 * 2))]
    return runtime


@pytest.mark.parametrize(("tokens", "compacts"), [(490_000, False), (505_000, True)])
async def test_pct_half_on_a_1m_window_compacts_at_500k(fake_llm: FakeOpenAIServer, tmp_path: Path, tokens: int, compacts: bool) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    runtime = _runtime(fake_llm, repo, tokens)
    fake_llm.push(*([Reply.text(SUMMARY)] if compacts else []), Reply.text("ok"))
    events = [event async for event in runtime.agent.run("next")]
    started = [e for e in events if isinstance(e, CompactionStarted)]
    assert bool(started) is compacts
    if compacts:
        assert started[0].trigger == "auto" and 500_000 <= started[0].tokens < 520_000
    else:
        warning = next(e for e in events if isinstance(e, ContextWarning))
        assert (warning.warn, warning.auto) == (400_000, 500_000)
    report = runtime.assembler.report(runtime.assembler.last_request, source="run")
    assert report.auto == 500_000
    assert f"(compaction.pct 0.5 from {runtime.paths.user_settings_file})" in __import__("app.context.report", fromlist=["x"]).render_list(report)
    await runtime.aclose()
