"""Engine selection, quarantine, fallback reasons, the turn fence and idempotent commits."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from app.context.engine import (
    ATOMIC_IDEMPOTENT_V1,
    BUILTIN_ID,
    CURRENT_TURN_FENCE_V1,
    AssembleResult,
    CommitResult,
    CompactResult,
    EngineHost,
    EngineInfo,
    select_engine,
)
from app.context.engine_turns import TurnLedger, durability_problem
from app.core.history import Message


class FakeEngine:
    def __init__(self, engine_id: str = "fake", *, fence: bool = True, idempotent: bool = True, commit: bool = True) -> None:
        self.info = EngineInfo(
            id=engine_id,
            name="Fake",
            current_turn_fence=CURRENT_TURN_FENCE_V1 if fence else None,
            turn_advancement_idempotency=ATOMIC_IDEMPOTENT_V1 if idempotent else None,
        )
        self.committed: dict[str, list[Message]] = {}
        self.fail_next = 0
        self.seen: list[list[Message]] = []
        if commit:
            self.commit_turn = self._commit

    def ingest(self, session_id: str, message: Message) -> bool:
        return True

    def assemble(self, session_id, messages, *, token_budget, model):  # type: ignore[no-untyped-def]
        self.seen.append(list(messages))
        return AssembleResult(list(messages))

    async def compact(self, session_id, *, force, reason, custom_instructions=""):  # type: ignore[no-untyped-def]
        return CompactResult(ok=True, compacted=False)

    def _commit(self, key: str, messages, *, terminal: bool, session_id: str) -> CommitResult:  # type: ignore[no-untyped-def]
        if self.fail_next:
            self.fail_next -= 1
            raise OSError("store offline")
        if key in self.committed:
            return CommitResult("duplicate")
        self.committed[key] = list(messages)
        return CommitResult("committed")


def _host(tmp_path: Path) -> EngineHost:
    return EngineHost(state_dir=tmp_path, project_root=tmp_path, model="m", context_window=1000)


def _ep(name: str, load) -> SimpleNamespace:  # type: ignore[no-untyped-def]
    return SimpleNamespace(name=name, load=lambda: load)


def test_builtin_by_default(tmp_path: Path) -> None:
    for value in ("", "builtin"):
        selection = select_engine(value, _host(tmp_path))
        assert selection.engine.info.id == BUILTIN_ID and not selection.quarantined


def test_missing_engine_is_quarantined_with_a_reason(tmp_path: Path) -> None:
    selection = select_engine("vector", _host(tmp_path), find=lambda: [])
    assert selection.engine.info.id == BUILTIN_ID
    assert "Context engine 'vector' is quarantined" in selection.problem and "no installed package provides it" in selection.problem


def test_an_engine_that_raises_while_loading_is_quarantined(tmp_path: Path) -> None:
    def factory(host):  # type: ignore[no-untyped-def]
        raise RuntimeError("database missing")

    selection = select_engine("broken", _host(tmp_path), find=lambda: [_ep("broken", factory)])
    assert "failed to load: RuntimeError: database missing" in selection.problem


def test_validation_failures(tmp_path: Path) -> None:
    no_info = select_engine("x", _host(tmp_path), find=lambda: [_ep("x", lambda host: object())])
    assert "no `info`" in no_info.problem
    wrong_id = select_engine("x", _host(tmp_path), find=lambda: [_ep("x", lambda host: FakeEngine("y"))])
    assert "info.id is 'y', not 'x'" in wrong_id.problem
    missing = select_engine("x", _host(tmp_path), find=lambda: [_ep("x", lambda host: NoCompact())])
    assert "lacks the method(s) compact" in missing.problem


class NoCompact:
    info = EngineInfo(id="x", name="No compact")

    def ingest(self, session_id: str, message: Message) -> bool:
        return False

    def assemble(self, session_id, messages, *, token_budget, model):  # type: ignore[no-untyped-def]
        return AssembleResult(list(messages))


def test_a_valid_engine_is_selected(tmp_path: Path) -> None:
    selection = select_engine("fake", _host(tmp_path), find=lambda: [_ep("fake", lambda host: FakeEngine())])
    assert selection.engine.info.id == "fake" and not selection.quarantined


def test_durability_reasons() -> None:
    assert durability_problem(FakeEngine()) == ""
    assert durability_problem(FakeEngine(fence=False)) == "current-turn transcript fencing is not declared"
    assert durability_problem(FakeEngine(idempotent=False)) == "atomic idempotent turn advancement is not declared"
    assert durability_problem(FakeEngine(commit=False)) == "commit_turn is not implemented"


def _history(turns: int) -> list[Message]:
    history: list[Message] = []
    for i in range(turns):
        history += [Message.user(f"q{i}"), Message(role="assistant", content=f"a{i}")]
    return history


def test_a_finished_turn_is_committed_once_and_a_retry_is_a_duplicate(tmp_path: Path) -> None:
    engine = FakeEngine()
    ledger = TurnLedger(engine, "s1", tmp_path / "outbox.json")
    history = _history(2)
    ledger.begin(2)
    key = ledger.key
    assert ledger.prefix(history) == history[:2], "reads see the history before the current user entry"
    ledger.end(history, finished=True)
    assert list(engine.committed) == [key] and [m.content for m in engine.committed[key]] == ["q1", "a1"]
    assert engine._commit(key, [], terminal=True, session_id="s1").status == "duplicate"


def test_failed_or_cancelled_turns_are_never_committed(tmp_path: Path) -> None:
    engine = FakeEngine()
    ledger = TurnLedger(engine, "s1", tmp_path / "outbox.json")
    ledger.begin(0)
    ledger.end(_history(1), finished=False)
    assert engine.committed == {}


def test_a_failed_commit_waits_in_the_outbox_and_the_next_turn_degrades_until_it_drains(tmp_path: Path) -> None:
    engine = FakeEngine()
    said: list[str] = []
    outbox = tmp_path / "outbox.json"
    ledger = TurnLedger(engine, "s1", outbox, notice=said.append)
    engine.fail_next = 2
    ledger.begin(0)
    first_key = ledger.key
    ledger.end(_history(1), finished=True)
    assert engine.committed == {} and outbox.exists(), "kept on disk"
    assert ledger.pending[0].attempts == 1 and "store offline" in ledger.pending[0].last_error
    ledger.begin(2)  # drain fails again: this turn is served by the built-in engine
    assert ledger.active.info.id == BUILTIN_ID
    assert any("degraded to \"builtin\"" in s and "waiting to be committed" in s for s in said)
    ledger.end(_history(2), finished=True)
    assert engine.committed == {}, "a degraded turn is not committed by the engine"
    reloaded = TurnLedger(engine, "s1", outbox)
    assert [p.key for p in reloaded.pending] == [first_key]
    reloaded.begin(4)
    assert list(engine.committed) == [first_key] and reloaded.active is engine and not outbox.exists()


def test_an_engine_without_the_declarations_serves_no_turn(tmp_path: Path) -> None:
    engine = FakeEngine(fence=False)
    said: list[str] = []
    ledger = TurnLedger(engine, "s1", None, notice=said.append)
    ledger.begin(0)
    assert ledger.active.info.id == BUILTIN_ID
    assert said == ['[context-engine] Context engine "fake" degraded to "builtin" for this logical turn: current-turn transcript fencing is not declared.']
    ledger.end(_history(1), finished=True)
    ledger.begin(2)
    assert len(said) == 1, "said once"


def _assembler(tmp_path: Path, engine: FakeEngine):  # type: ignore[no-untyped-def]
    from app.config import Settings
    from app.context.assembler import ContextAssembler
    from app.core.tokens import TokenCounter
    from app.paths import Paths

    paths = Paths(cwd=tmp_path, config_dir=tmp_path / "config", data_dir=tmp_path / "data")
    assembler = ContextAssembler(paths=paths, settings=Settings(), model="m", context_window=32_000, counter=TokenCounter("m"))
    assembler.ledger = TurnLedger(engine, "s1", tmp_path / "outbox.json")
    return assembler


def test_an_engine_that_raises_while_assembling_is_quarantined_for_the_process(tmp_path: Path) -> None:
    engine = FakeEngine("flaky")
    calls = []

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        raise RuntimeError("index corrupted")

    engine.assemble = broken  # type: ignore[method-assign]
    assembler = _assembler(tmp_path, engine)
    history = _history(2)
    assembler.begin_turn(2)
    request = assembler.assemble(history, [])
    assert [m.content for m in request.messages][-4:] == [m.content for m in history], "the built-in view served the turn"
    [notice] = assembler.take_notices()
    assert notice.startswith("Context engine 'flaky' is quarantined for this process") and "index corrupted" in notice
    assert notice in assembler.problems and assembler.take_notices() == []
    assembler.end_turn(history, finished=True)
    assembler.begin_turn(4)
    assembler.assemble(_history(3), [])
    assert calls == [1], "never asked again"
    assert engine.committed == {} and assembler.ledger.active.info.id == BUILTIN_ID


def test_an_engine_whose_after_turn_raises_is_quarantined_too(tmp_path: Path) -> None:
    engine = FakeEngine("flaky")

    def broken(*args):  # type: ignore[no-untyped-def]
        raise ValueError("disk full")

    engine.after_turn = broken  # type: ignore[attr-defined]
    assembler = _assembler(tmp_path, engine)
    assembler.begin_turn(0)
    assembler.end_turn(_history(1), finished=True)
    [notice] = assembler.take_notices()
    assert "after_turn() raised ValueError: disk full" in notice
    assembler.begin_turn(2)
    assert assembler.ledger.active.info.id == BUILTIN_ID


def test_an_optional_maintain_runs_after_each_finished_turn_with_the_session_file(tmp_path: Path) -> None:
    engine = FakeEngine("tidy")
    passes: list[tuple[str, Path]] = []
    engine.maintain = lambda session_id, session_file: passes.append((session_id, session_file))  # type: ignore[attr-defined]
    assembler = _assembler(tmp_path, engine)
    assembler.session_id = "s1"
    assembler.begin_turn(0)
    assembler.end_turn(_history(1), finished=True)
    assembler.begin_turn(2)
    assembler.end_turn(_history(2), finished=False)  # a failed turn is not maintained after
    assert passes == [("s1", assembler.paths.chats_dir / "s1.jsonl")]


def test_a_compaction_in_the_middle_of_a_turn_moves_the_fence_to_the_request(tmp_path: Path) -> None:
    engine = FakeEngine()
    assembler = _assembler(tmp_path, engine)
    old = _history(3)  # two finished turns, then the live request at index 4
    assembler.begin_turn(4)
    live = old[4]
    new = [Message.user("<state_snapshot>s</state_snapshot>"), Message(role="assistant", content="Got it."), live, old[5]]
    assembler.history_replaced(old, new)
    assert assembler.ledger.turn_start == 2
    assert assembler.ledger.prefix(new) == new[:2], "reads see what came before the request, nothing of this turn"
    assembler.end_turn(new, finished=True)
    [committed] = engine.committed.values()
    assert [m.content for m in committed] == [live.content, old[5].content], "the commit starts at the request"
