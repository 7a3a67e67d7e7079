"""Durable turns: one engine per logical turn, and each finished turn committed exactly once.

An engine that keeps its own copy of turns must declare the current-turn fence
and idempotent advancement and implement ``commit_turn``; otherwise the turn is
served by the built-in engine and the reason is said once. Retries inside a turn
reuse its advancement key; failed and cancelled turns are never committed; a
commit that did not go through waits in an outbox (kept on disk) and is retried
before the next turn is assembled.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict
from app.dataclass import dataclass
from pathlib import Path
from typing import Any

from app.core.ids import random_hex
from app.context.engine import ATOMIC_IDEMPOTENT_V1, BUILTIN_ID, CURRENT_TURN_FENCE_V1, BuiltinEngine
from app.core.history import Message
from app.fsutil import atomic_write_text

log = logging.getLogger(__name__)
ACCEPTED = ("committed", "duplicate")


def durability_problem(engine: Any) -> str:
    """Why ``engine`` may not take over a turn; "" when it may."""
    info = engine.info
    if info.current_turn_fence != CURRENT_TURN_FENCE_V1:
        return "current-turn transcript fencing is not declared"
    if info.turn_advancement_idempotency != ATOMIC_IDEMPOTENT_V1:
        return "atomic idempotent turn advancement is not declared"
    if not callable(getattr(engine, "commit_turn", None)):
        return "commit_turn is not implemented"
    return ""


@dataclass
class PendingCommit:
    """A finished turn waiting in the outbox for the engine to commit it, with its failed attempts."""

    key: str
    messages: list[dict[str, Any]]
    attempts: int = 0
    last_error: str = ""


class TurnLedger:
    def __init__(self, engine: Any, session_id: str, outbox: Path | None = None, notice: Callable[[str], None] | None = None) -> None:
        self.engine = engine
        self.session_id = session_id
        self.outbox_path = outbox
        self.notice = notice or (lambda text: None)
        self.builtin = BuiltinEngine()
        self.active: Any = self.builtin if engine.info.id == BUILTIN_ID else engine
        self.key: str | None = None
        self.turn_start: int | None = None
        self.pending: list[PendingCommit] = self._load_outbox()
        self._said: set[str] = set()

    @property
    def durable(self) -> bool:
        return self.engine.info.id != BUILTIN_ID

    # -- a turn ---------------------------------------------------------------------------------

    def begin(self, turn_start: int) -> str:
        """Lease the engine for a new logical turn whose user entry is ``history[turn_start]``."""
        self.key = random_hex(32)
        self.turn_start = turn_start
        if not self.durable:
            self.active = self.builtin
            return self.key
        self.drain()
        reason = durability_problem(self.engine)
        if not reason and self.pending:
            reason = f"{len(self.pending)} earlier turn(s) are still waiting to be committed"
        self.active = self.builtin if reason else self.engine
        if reason:
            self._say(f'[context-engine] Context engine "{self.engine.info.id}" degraded to "{BUILTIN_ID}" for this logical turn: {reason}.')
        return self.key

    def prefix(self, history: Sequence[Message]) -> list[Message]:
        """What any read during the turn sees: the history before the current user entry."""
        return list(history if self.turn_start is None else history[: self.turn_start])

    def end(self, history: Sequence[Message], *, finished: bool) -> None:
        """Commit a finished turn once; a failed or cancelled one never."""
        key, start = self.key, self.turn_start
        self.key = self.turn_start = None
        if not finished or self.active is self.builtin or key is None or start is None:
            return
        self.pending.append(PendingCommit(key, [m.to_dict() for m in history[start:]]))
        self.drain()

    def quarantine(self, reason: str) -> None:
        """The engine raised: the built-in one serves the rest of the process.

        Commits still queued stay in the outbox file (not rewritten here), for a later
        process whose engine works.
        """
        log.warning(reason)
        self.engine = self.active = self.builtin
        self.pending = []

    # -- the outbox -------------------------------------------------------------------------------

    def drain(self) -> None:
        """Commit what is waiting, oldest first; stop at the first that does not go through."""
        while self.pending:
            item = self.pending[0]
            try:
                result = self.engine.commit_turn(item.key, [Message.from_dict(m) for m in item.messages], terminal=True, session_id=self.session_id)
                status = getattr(result, "status", result)
            except Exception as exc:
                status = f"error: {type(exc).__name__}: {exc}"
            if status in ACCEPTED:
                self.pending.pop(0)
                continue
            item.attempts += 1
            item.last_error = status if str(status).startswith("error") else f"invalid commit_turn result status: {status}"
            self._say(f"[context-engine] durable turn advancement remains queued ({item.last_error}).")
            break
        self._save_outbox()

    def _load_outbox(self) -> list[PendingCommit]:
        if self.outbox_path is None:
            return []
        try:
            data = json.loads(self.outbox_path.read_text(encoding="utf-8"))
            return [PendingCommit(**item) for item in data if isinstance(item, dict)]
        except (OSError, ValueError, TypeError):
            return []

    def _save_outbox(self) -> None:
        if self.outbox_path is None:
            return
        try:
            if self.pending:
                atomic_write_text(self.outbox_path, json.dumps([asdict(p) for p in self.pending]), mode=0o600)
            elif self.outbox_path.exists():
                self.outbox_path.unlink()
        except OSError as exc:
            log.warning("could not save the context-engine outbox: %s", exc)

    def _say(self, text: str) -> None:
        log.warning(text)
        if text not in self._said:
            self._said.add(text)
            self.notice(text)
