"""Helpers shared by the memory tests: a memory layout in a temp dir, files, a fake provider."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from app.context.memory.document import parse_memory_text
from app.context.memory.entry import MemoryEntry
from app.context.memory.paths import MemoryScope
from app.context.memory.paths import MemoryPaths
from app.core.history import Message
from app.core.llm.types import ChatRequest, Completion

DAY = 86_400.0
NOW = 1_790_000_000.0  # a fixed "now": 2026-09-21T14:13:20Z


def make_paths(tmp_path: Path) -> MemoryPaths:
    workspace = tmp_path / "repo"
    (workspace / ".git").mkdir(parents=True, exist_ok=True)
    return MemoryPaths(
        project_root=tmp_path / "data" / "projects" / "-repo" / "memory",
        user_root=tmp_path / "data" / "memories",
        team_root=workspace / ".qwen" / "team-memory",
        workspace_root=workspace,
    )


def memory_text(name: str, description: str, memory_type: str, body: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\ntype: {memory_type}\n---\n\n{body}\n"


def put(root: Path, rel_path: str, text: str, mtime: float | None = None) -> Path:
    path = root / rel_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def entry(
    title: str,
    description: str = "",
    body: str = "",
    memory_type: str = "project",
    *,
    mtime: float = NOW,
    scope: MemoryScope = MemoryScope.PROJECT,
    rel_path: str | None = None,
    root: Path = Path("/mem/project"),
) -> MemoryEntry:
    """An in-memory entry (no file) for scoring, selection and rendering tests."""
    rel = rel_path or f"{memory_type}/{title.lower().replace(' ', '-')}.md"
    document = parse_memory_text(memory_text(title, description, memory_type, body))
    return MemoryEntry(scope=scope, path=root / rel, rel_path=rel, document=document, mtime=mtime, size=0)


def piece(alphabet: str, length: int, seed: int = 7) -> str:
    """A deterministic run of characters from ``alphabet``, so test secrets are built, never stored."""
    return "".join(alphabet[(seed + index * 31 + index * index) % len(alphabet)] for index in range(length))


class FakeProvider:
    """A provider whose ``complete`` answers with JSON, raises, or hangs."""

    model = "fake-model"
    base_url = "http://fake.invalid/v1"
    read_timeout = 30.0

    def __init__(self, answer: Any = None, *, error: BaseException | None = None, delay: float = 0.0, raw: str | None = None) -> None:
        self.answer = answer
        self.error = error
        self.delay = delay
        self.raw = raw
        self.requests: list[ChatRequest] = []

    async def complete(self, request: ChatRequest, *, timeout: float | None = None) -> Completion:
        self.requests.append(request)
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.error is not None:
            raise self.error
        content = self.raw if self.raw is not None else json.dumps(self.answer)
        return Completion(message=Message(role="assistant", content=content), usage=None, finish_reason="stop")

    def stream(self, request: ChatRequest):  # pragma: no cover - not used by side queries
        raise NotImplementedError

    async def aclose(self) -> None:
        return None
