"""Building the real app against the scripted server, and driving it from Pilot without sleeping."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Markdown, Static

from app.config import Settings
from app.core.history import Message, ToolCall
from app.core.session.recorder import SessionRecorder
from app.paths import Paths
from app.tui.app import AgentctxApp
from app.tui.screens.text_view import TextScreen
from app.tui.widgets.context_map import ContextMap
from app.tui.widgets.message_views import AssistantView, NoticeView, ToolView, UserView
from tests.fakes.openai_server import FakeOpenAIServer

SIZE = (120, 40)
CONTEXT_WINDOW = 32_000


def make_settings(server: FakeOpenAIServer | None = None, **ui: Any) -> Settings:
    """Settings pointing at the fake server (or, without one, no endpoint at all)."""
    settings = Settings()
    if server is not None:
        settings.model.base_url = server.base_url
        settings.model.name = "fake-model"
        settings.model.api_key = "k"
        settings.model.context_window = CONTEXT_WINDOW
        settings.model.max_retries = 0  # an error is one request, not four with back-off
        settings.model.read_timeout = 10.0
    # Background memory agents would take the scripted replies meant for the conversation;
    # the memory tests turn them on where they are the subject.
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    settings.suggestions.enabled = False
    # Recall ranks alike whether or not the embeddings extra is installed (CI does not install it).
    settings.memory.semantic = "off"
    # Likewise the session's own side queries (its title, the recap after a break).
    settings.sessions.auto_title = settings.sessions.recap_on_resume = False
    for key, value in ui.items():
        setattr(settings.ui, key, value)
    return settings


def make_app(
    server: FakeOpenAIServer | None,
    workspace: Path,
    *,
    settings: Settings | None = None,
    resume: str | None = None,
    continue_latest: bool = False,
) -> AgentctxApp:
    return AgentctxApp(
        settings=settings if settings is not None else make_settings(server),
        paths=Paths.for_cwd(workspace),
        resume=resume,
        continue_latest=continue_latest,
        warm_up=False,
    )


# -- waiting ------------------------------------------------------------------------------------


async def wait_until(pilot: Pilot[Any], predicate: Callable[[], object], *, max_iters: int = 1000, what: str = "") -> None:
    """Poll ``predicate`` between short pauses of the app; fail (not hang) when it never holds."""
    for _ in range(max_iters):
        if predicate():
            return
        await pilot.pause(0.005)
    if predicate():
        return
    raise AssertionError(f"condition not met after {max_iters} polls: {what or predicate}")


async def ready(pilot: Pilot[Any]) -> AgentctxApp:
    """The app once its session is open (the runtime is built in a worker)."""
    app = pilot.app
    assert isinstance(app, AgentctxApp)
    await wait_until(pilot, lambda: app.runtime is not None and app.status.state == "idle", what="session opened")
    await app.workers.wait_for_complete()
    await pilot.pause()
    app.prompt.cursor_blink = False
    return app


def _busy(app: AgentctxApp) -> bool:
    agent = app.runtime.agent if app.runtime else None
    return bool(agent and agent.busy) or any(w.group in ("turn", "session") and not w.is_finished for w in app.workers)


async def wait_turn_done(pilot: Pilot[Any]) -> None:
    """Until the turn worker (and the agent's task) have ended and the UI caught up."""
    app = pilot.app
    assert isinstance(app, AgentctxApp)
    await wait_until(pilot, lambda: not _busy(app), what="turn finished")
    await app.workers.wait_for_complete()
    await pilot.pause()


async def type_text(pilot: Pilot[Any], text: str) -> None:
    """Insert text at the prompt's cursor, as typing it would.

    Each ``pilot.press`` costs ~60 ms (it waits for the process to go idle twice),
    so plain text is inserted and only the keys under test are pressed.
    """
    app = pilot.app
    assert isinstance(app, AgentctxApp)
    app.prompt.insert(text)
    await pilot.pause()


async def send(pilot: Pilot[Any], text: str, *, wait: bool = True) -> None:
    """Type a prompt, press Enter, and (by default) wait for the turn to end."""
    app = pilot.app
    assert isinstance(app, AgentctxApp)
    app.prompt.load_text(text)
    app.prompt.move_cursor(app.prompt.document.end)
    await pilot.press("enter")
    if wait:
        await wait_until(pilot, lambda: _busy(app) or not app.prompt.text, what="turn started")
        await wait_turn_done(pilot)


# -- looking at the app ---------------------------------------------------------------------------


def entry_views(app: AgentctxApp) -> list[Widget]:
    """The mounted entry widgets, top to bottom."""
    return [w for w in app.conversation.children if isinstance(w, (UserView, AssistantView, ToolView, NoticeView))]


def views_of(app: AgentctxApp, kind: type[Widget]) -> list[Any]:
    return [w for w in entry_views(app) if isinstance(w, kind)]


def markdown_source(view: AssistantView) -> str:
    return view.query_one(Markdown).source


def rendered_text(widget: Widget) -> str:
    """What a Static-like widget (or the status line) shows, as plain text."""
    rendered = widget.render()
    return str(getattr(rendered, "plain", rendered))


def notifications(app: AgentctxApp, severity: str | None = None) -> list[str]:
    return [n.message for n in app._notifications if severity is None or n.severity == severity]


def record_lines(app: AgentctxApp) -> list[dict[str, Any]]:
    """The current session's JSONL records."""
    assert app.runtime is not None
    path = app.runtime.recorder.path
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def map_lines(app: App[Any]) -> list[str]:
    """The context map as plain lines (right-padded cells trimmed; a block's extra rows are "")."""
    return [line.rstrip() for line in rendered_text(app.query_one(ContextMap)).splitlines()]


def text_screen(app: AgentctxApp) -> TextScreen:
    screen = app.screen
    assert isinstance(screen, TextScreen), f"expected a TextScreen on top, got {screen!r}"
    return screen


def shown_text(screen: TextScreen) -> str:
    """The body a TextScreen draws (not just the string it was given)."""
    return rendered_text(screen.query_one("#text-content", Static))


async def run_command(pilot: Pilot[Any], text: str) -> None:
    """Type a /command and press Enter; commands act at once (a turn they start is not waited for)."""
    await send(pilot, text, wait=False)
    await pilot.pause()


# -- instruction files ------------------------------------------------------------------------------

QWEN_MD = "# Demo rules\n\nUse 4-space indents.\n\n@docs/x.md\n"
IMPORTED_MD = "Always run `make test` before committing.\n"
# QWEN.md exactly as it is injected: wrapped in its context block, the @import expanded in place.
QWEN_BLOCK = (
    "--- Context from: QWEN.md ---\n"
    "# Demo rules\n\nUse 4-space indents.\n\n"
    "<!-- Imported from: docs/x.md -->\n"
    "Always run `make test` before committing.\n\n"
    "<!-- End of import from: docs/x.md -->\n"
    "--- End of Context from: QWEN.md ---"
)


def write_instructions(workspace: Path) -> None:
    """A QWEN.md that imports docs/x.md, as a project would have them."""
    (workspace / "docs").mkdir(exist_ok=True)
    (workspace / "docs" / "x.md").write_text(IMPORTED_MD, encoding="utf-8")
    (workspace / "QWEN.md").write_text(QWEN_MD, encoding="utf-8")


# -- recorded sessions ------------------------------------------------------------------------------


def record_session(
    paths: Paths,
    messages: Iterable[Message],
    *,
    session_id: str | None = None,
    mtime: float | None = None,
    timestamp: str | None = None,
    cwd: Path | None = None,
    git_branch: str | None = None,
    title: tuple[str, str] | None = None,
) -> Path:
    """Write a session file the way a real run would.

    Pinned for snapshots and for the recap after a break: the modification time,
    every record's timestamp, the cwd in each record (it sets the file's size) and
    the branch; ``title`` is ``(text, "manual" | "auto")`` recorded after the messages.
    """
    import os

    clock = (lambda: timestamp) if timestamp is not None else None
    recorder = SessionRecorder(
        paths.chats_dir,
        session_id=session_id,
        cwd=cwd or paths.cwd,
        version="test",
        git_branch=git_branch,
        **({"clock": clock} if clock else {}),
    )
    for message in messages:
        recorder.append_message(message)
    if title is not None:
        recorder.append_title(*title)
    if mtime is not None:
        os.utime(recorder.path, (mtime, mtime))
    return recorder.path


def exchange(prompt: str, answer: str) -> list[Message]:
    return [Message.user(prompt), Message(role="assistant", content=answer)]


def tool_exchange(call_id: str, name: str, arguments: dict[str, Any], output: str, *, is_error: bool = False) -> list[Message]:
    call = ToolCall(call_id, name, json.dumps(arguments))
    return [Message(role="assistant", content="", tool_calls=[call]), Message.tool_result(call, output, is_error=is_error)]
