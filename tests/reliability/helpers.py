"""What the reliability scenarios share: settings for the fake server, replies routed by caller, the record.

The conversation, the memory agents and the summarizer all talk to the same fake
server; a ``Script`` gives each its own queue of replies, so a background
extraction never eats a reply meant for the conversation, whatever the timing.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.config import Settings
from app.core.events import ApprovalNeeded, Decision, Event
from app.core.session.resume import load_session
from app.runtime import Runtime
from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest, Reply

CALLERS = ("main", "extract", "dream", "summary", "recall", "title")
# Phrases that open each caller's system prompt (app/context/*/templates).
_MARKERS = {
    "extract": "You keep the long-term memory of a coding agent. You are given the newest part",
    "dream": "it is time to tidy it",
    "summary": "<state_snapshot>",
    "recall": "You choose which saved memories",
    "title": "You name coding sessions",
}
# Background callers a scenario does not script get an answer that changes nothing.
_DEFAULTS = {"extract": "Nothing worth changing.", "dream": "Nothing worth changing.", "title": "A reliability scenario"}


def caller_of(request: RecordedRequest) -> str:
    messages = request.messages
    system = str(messages[0].get("content") or "") if messages and messages[0].get("role") == "system" else ""
    for caller, marker in _MARKERS.items():
        if marker in system:
            return caller
    return "main"


@dataclass
class Script:
    """A responder with one reply queue per caller; an empty memory-agent queue answers 'nothing to do'."""

    queues: dict[str, deque[Reply]] = field(default_factory=lambda: {c: deque() for c in CALLERS})
    received: list[tuple[str, RecordedRequest]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, caller: str, *replies: Reply) -> Script:
        with self._lock:
            self.queues[caller].extend(replies)
        return self

    def __call__(self, request: RecordedRequest) -> Reply | None:
        caller = caller_of(request)
        with self._lock:
            self.received.append((caller, request))
            queue = self.queues[caller]
            if queue:
                return queue.popleft()
        if caller in _DEFAULTS:
            return Reply.text(_DEFAULTS[caller])
        return None  # the conversation's script ran out: a 500 the test will see

    def count(self, caller: str) -> int:
        with self._lock:
            return sum(1 for c, _ in self.received if c == caller)

    def requests(self, caller: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for c, r in self.received if c == caller]


def attach(server: FakeOpenAIServer, script: Script | None = None) -> Script:
    script = script or Script()
    server.responder = script
    return script


def settings_for(base_url: str, *, retries: int = 0, read_timeout: float = 10.0, **memory: Any) -> Settings:
    """An endpoint on the fake server; recall by heuristic and no dreaming unless asked for."""
    settings = Settings()
    settings.model.base_url, settings.model.name, settings.model.api_key = base_url, "fake-model", "k"
    settings.model.max_retries = retries
    settings.model.read_timeout = read_timeout
    settings.model.context_window = 32_000
    settings.memory.recall_model = False
    settings.memory.dream = False
    # The session's and the TUI's side queries would take replies scripted for the conversation.
    settings.sessions.auto_title = settings.suggestions.enabled = False
    for key, value in memory.items():
        setattr(settings.memory, key, value)
    return settings


async def turn(runtime: Runtime, prompt: str, answer: Callable[[ApprovalNeeded], Decision] | None = None) -> list[Event]:
    assert runtime.agent is not None
    events: list[Event] = []
    async for event in runtime.agent.run(prompt):
        events.append(event)
        if isinstance(event, ApprovalNeeded) and event.future is not None and not event.future.done():
            event.future.set_result(answer(event) if answer else Decision.APPROVE)
    return events


def of_type(events: Iterable[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def record_rows(path: Path) -> list[dict[str, Any]]:
    """The session file's valid JSON lines (a torn line is left out, as resume leaves it out)."""
    rows = []
    for line in path.read_bytes().split(b"\n"):
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue
    return rows


def recorded_prompts(path: Path) -> list[str]:
    """The user's words as the session record keeps them (reminders left out)."""
    return [
        m.content
        for m in (r.message for r in load_session(path).records if r.type == "user")
        if m is not None and not m.content.startswith("<system-reminder>")
    ]


def bytes_lost(prompts: Iterable[str], path: Path) -> int:
    """How many bytes of the user's prompts the record no longer holds (the report's 'bytes lost')."""
    kept = recorded_prompts(path) if path.exists() else []
    return sum(len(p.encode("utf-8")) for p in prompts if p not in kept)
