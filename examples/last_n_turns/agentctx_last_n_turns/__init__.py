"""Only the last N user turns of the history are seen; finished turns are committed once, by key."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from app.context.engine import (
    ATOMIC_IDEMPOTENT_V1,
    CURRENT_TURN_FENCE_V1,
    AssembleResult,
    CommitResult,
    CompactResult,
    EngineHost,
    EngineInfo,
)
from app.core.history import Message


class LastNTurnsEngine:
    info = EngineInfo(
        id="last-n-turns",
        name="Last N turns",
        version="0.1.0",
        current_turn_fence=CURRENT_TURN_FENCE_V1,
        turn_advancement_idempotency=ATOMIC_IDEMPOTENT_V1,
    )

    def __init__(self, host: EngineHost) -> None:
        self.turns = max(1, int(host.settings.get("turns", "3")))
        host.state_dir.mkdir(parents=True, exist_ok=True)
        self.store = host.state_dir / "committed.json"

    def _committed(self) -> dict[str, list[dict]]:
        try:
            return json.loads(self.store.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def ingest(self, session_id: str, message: Message) -> bool:
        return False  # the recorder keeps the transcript; this engine keeps only its committed turns

    def assemble(self, session_id: str, messages: Sequence[Message], *, token_budget: int, model: str) -> AssembleResult:
        starts = [i for i, m in enumerate(messages) if m.role == "user" and not m.content.startswith("<")]
        keep_from = starts[-self.turns] if len(starts) >= self.turns else 0
        kept = list(messages[keep_from:])
        note = f"Only the last {self.turns} user turns of this conversation are shown; earlier ones were left out."
        return AssembleResult(messages=kept, system_prompt_addition=note if keep_from else "")

    async def compact(self, session_id: str, *, force: bool, reason: str, custom_instructions: str = "") -> CompactResult:
        return CompactResult(ok=True, compacted=False, reason="the window already holds only the last turns")

    def commit_turn(self, advancement_key: str, messages: Sequence[Message], *, terminal: bool, session_id: str) -> CommitResult:
        committed = self._committed()
        if advancement_key in committed:
            return CommitResult("duplicate")
        committed[advancement_key] = [m.to_dict() for m in messages]
        tmp = self.store.with_suffix(".tmp")
        tmp.write_text(json.dumps(committed), encoding="utf-8")
        tmp.replace(self.store)  # atomic: a commit is all or nothing
        return CommitResult("committed")


def create_engine(host: EngineHost) -> LastNTurnsEngine:
    return LastNTurnsEngine(host)
