"""max_tokens on every request: the model's output limit, capped by what the window leaves (Qwen Code 0.24.4: 32000; 4000 on 32 K)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Settings
from app.core.history import Message
from app.core.llm.models import output_token_limit, output_tokens_for
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def _settings(server: FakeOpenAIServer, window: int, **model: object) -> Settings:
    settings = Settings()
    settings.model.base_url = server.base_url
    settings.model.name = "fake-model"
    settings.model.api_key = "k"
    settings.model.max_retries = 0
    settings.model.context_window = window
    for key, value in model.items():
        setattr(settings.model, key, value)
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    return settings


@pytest.mark.parametrize(("window", "expected"), [(128_000, 32_000), (32_768, 4_000), (32_000, 4_000), (1_000_000, 32_000)])
def test_the_output_limit_follows_the_window(window: int, expected: int) -> None:
    assert output_token_limit(window) == expected
    assert output_token_limit(window, 8_192) == 8_192


def test_what_the_window_leaves_caps_it() -> None:
    assert output_tokens_for(40_000, 30_000) == 10_000
    assert output_tokens_for(40_000, 39_990) == 256, "never less than a useful answer"


@pytest.mark.parametrize(("window", "expected"), [(128_000, 32_000), (32_768, 4_000)])
async def test_every_request_carries_max_tokens(fake_llm: FakeOpenAIServer, tmp_path: Path, window: int, expected: int) -> None:
    settings = _settings(fake_llm, window)
    settings.sessions.auto_title = True
    fake_llm.push(Reply.text("hello"), Reply.text("A title"))
    runtime = build_runtime(settings, Paths.for_cwd(tmp_path))
    assert runtime.agent is not None
    [event async for event in runtime.agent.run("hi")]
    await runtime.aclose()
    assert fake_llm.requests[0].body["max_tokens"] == expected
    assert all("max_tokens" in r.body for r in fake_llm.requests), [r.body.get("max_tokens") for r in fake_llm.requests]


async def test_a_full_window_leaves_less_room_for_the_answer(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    settings = _settings(fake_llm, 60_000)
    settings.compaction.auto = False
    runtime = build_runtime(settings, Paths.for_cwd(tmp_path))
    assert runtime.agent is not None
    runtime.agent.history += [Message.user("paste"), Message(role="assistant", content="w " * 80_000)]  # ~40 K tokens
    fake_llm.push(Reply.text("ok"))
    [event async for event in runtime.agent.run("go on")]
    await runtime.aclose()
    sent = runtime.assembler.last_request
    assert sent is not None
    assert fake_llm.requests[0].body["max_tokens"] == 60_000 - sent.total_tokens < 32_000


def test_a_configured_output_limit_wins(tmp_path: Path) -> None:
    from app.runtime import model_provider

    settings = Settings()
    settings.model.max_output_tokens = 1_234
    assert model_provider(settings).max_output_tokens == 1_234  # type: ignore[attr-defined]
