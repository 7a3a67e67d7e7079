"""Images in whole turns: read_file sends one to a model that takes them, the record keeps it, and a
pile of them starts a compaction whose summarizer sees placeholders and whose result keeps the last few."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from app.config import CompactionSettings
from app.context.compaction.attachments import IMAGES_INTRO
from app.context.compaction.compactor import Compactor
from app.core.events import CompactionFinished, CompactionStarted, TurnFinished
from app.core.history import TOOL_IMAGES_HEADER
from app.core.session.resume import load_session
from app.core.tokens import TokenCounter
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.helpers import make_agent, run_turn

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
SUMMARY = "<state_snapshot><current_work>looked at screenshots</current_work></state_snapshot>"


def _image_urls(message: dict) -> list[str]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [part["image_url"]["url"] for part in content if part.get("type") == "image_url"]


def _seeing_agent(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path, **options):  # type: ignore[no-untyped-def]
    agent = make_agent(fake_llm, workspace, tmp_path / "chats", **options)
    agent.tool_context = replace(agent.tool_context, images=True)
    return agent


async def test_a_read_image_reaches_the_next_request_and_survives_resume(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "screen.png").write_bytes(PNG)
    agent = _seeing_agent(fake_llm, workspace, tmp_path)
    fake_llm.push(Reply.tool_calls([("c1", "read_file", {"path": "screen.png"})]), Reply.text("A gradient."))
    events = await run_turn(agent, "what is on screen.png?")
    assert isinstance(events[-1], TurnFinished)
    sent = fake_llm.requests[1].body["messages"]
    assert [m["role"] for m in sent[-3:]] == ["assistant", "tool", "user"]
    assert sent[-2]["content"] == "screen.png is a PNG image (1 KB); it follows as an image."
    assert sent[-1]["content"][0]["text"] == TOOL_IMAGES_HEADER
    [url] = _image_urls(sent[-1])
    assert url.startswith("data:image/png;base64,iVBORw0KGgo")
    loaded = load_session(agent.recorder.path)
    [tool] = [m for m in loaded.messages if m.role == "tool"]
    assert tool.images == agent.history[2].images and tool.images[0].size == len(PNG)


async def test_a_model_that_takes_no_images_gets_a_description(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "screen.png").write_bytes(PNG)
    agent = make_agent(fake_llm, workspace, tmp_path / "chats")  # "fake-model": not known to take images
    fake_llm.push(Reply.tool_calls([("c1", "read_file", {"path": "screen.png"})]), Reply.text("I cannot see it."))
    await run_turn(agent, "what is on screen.png?")
    sent = fake_llm.requests[1].body["messages"]
    assert not any(_image_urls(m) for m in sent)
    assert "is a PNG image (1 KB). This model is not sent images" in sent[-1]["content"]


async def test_many_tool_images_start_a_compaction_that_keeps_the_last_three(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for n in range(4):
        (workspace / f"shot{n}.png").write_bytes(PNG + bytes([n]))
    compactor = lambda provider: Compactor(  # noqa: E731
        provider=provider,
        settings=CompactionSettings(auto_delay_seconds=0.0, quality_check=False, image_threshold=4),
        counter=TokenCounter("fake-model"),
        root=workspace,
        context_window=1_000_000,
    )
    # A window far below every token threshold: only the images can start it.
    agent = _seeing_agent(fake_llm, workspace, tmp_path, context_window=1_000_000, compactor=compactor)
    calls = [(f"c{n}", "read_file", {"path": f"shot{n}.png"}) for n in range(4)]
    fake_llm.push(Reply.tool_calls(calls), Reply.text("Four screenshots."))
    await run_turn(agent, "look at the four screenshots")
    fake_llm.push(Reply.text(SUMMARY), Reply.text("Still four."))
    events = await run_turn(agent, "and now?")

    started = next(e for e in events if isinstance(e, CompactionStarted))
    finished = next(e for e in events if isinstance(e, CompactionFinished))
    assert started.trigger == "image_overflow" and finished.ok
    summarizer = fake_llm.requests[2].body["messages"]
    assert not any(_image_urls(m) for m in summarizer), "the summarizer is sent no image"
    assert sum(str(m["content"]).count("[image: image/png]") for m in summarizer) == 4
    request = fake_llm.requests[3].body["messages"]
    restored = [m for m in request if _image_urls(m)]
    assert len(restored) == 1 and len(_image_urls(restored[0])) == 3
    assert IMAGES_INTRO in restored[0]["content"][0]["text"]
    assert '- turn 4: read_file args={"path": "shot1.png"}' in restored[0]["content"][0]["text"]
    assert sum(len(m.images) for m in agent.history if m.role == "tool") == 0

    fake_llm.push(Reply.text("Yes."))
    later = await run_turn(agent, "anything else?")
    assert not any(isinstance(e, CompactionStarted) for e in later), "three restored images do not start it again"
