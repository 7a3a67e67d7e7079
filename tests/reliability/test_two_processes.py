"""Two agent processes in one project at once: one dream at a time, no lost writes, a record each.

The processes are real (``tests/reliability/driver.py``); the fake server in this
process holds their requests until both have arrived, so the overlap is certain
rather than left to timing.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from app.context.memory import MemoryScope
from app.context.memory.document import parse_memory_text
from app.context.memory.schedule import acquire_lock, clear_stale_lock
from app.context.memory.schedule import read_meta
from app.context.memory.paths import memory_paths
from app.core.session.resume import load_session
from app.paths import Paths
from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest, Reply
from tests.reliability.helpers import Script, attach, caller_of, recorded_prompts
from tests.reliability.processes import Driver, check_memory_files, check_record, session_files, wait_until
from tests.reliability.report import BYTES_LOST

MEMORY = "---\nname: {name}\ndescription: {name} is how this team works\ntype: feedback\n---\n{name}.\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


class HeldDreams(Script):
    """Answers the dream agent only after ``release()``: a dream that got the lock cannot end meanwhile."""

    def __init__(self) -> None:
        super().__init__()
        self.released = threading.Event()

    def __call__(self, request: RecordedRequest) -> Reply | None:
        if caller_of(request) != "dream":
            return super().__call__(request)
        with self._lock:
            self.received.append(("dream", request))
        self.released.wait(60)
        return Reply.text("Nothing to merge.")


def test_a_stale_lock_is_cleared_and_taken_by_one_process_only(tmp_path: Path) -> None:
    """The race the guard closes, played step by step: B looks at a stale lock, A clears it and takes
    a fresh one, then B would delete A's fresh lock. With the guard, A waits until B has finished."""
    lock = tmp_path / "consolidation.lock"
    lock.write_text("999999999")  # a dead process
    won: dict[str, bool] = {}

    def process_a() -> None:
        clear_stale_lock(lock, time.time())
        won["a"] = acquire_lock(lock, pid=1)

    def b_is_looking(pid: int) -> bool:
        other = threading.Thread(target=process_a)
        other.start()
        other.join(timeout=0.5)  # without the guard A is done by now; with it, A waits for B
        return False  # B sees the dead PID: stale

    clear_stale_lock(lock, time.time(), is_alive=b_is_looking)
    won["b"] = acquire_lock(lock, pid=2)
    deadline = time.monotonic() + 5
    while "a" not in won and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sorted(won.values()) == [False, True], f"exactly one process holds the lock: {won}"
    assert lock.read_text() == ("1" if won["a"] else "2")


@pytest.mark.soak
@pytest.mark.timeout(180)
@pytest.mark.parametrize("stale", [False, True], ids=["free lock", "stale lock of a dead process"])
def test_two_processes_dreaming_at_once_dream_once(fake_llm: FakeOpenAIServer, repo: Path, stale: bool) -> None:
    script = HeldDreams()
    attach(fake_llm, script).add("main", Reply.text("one"), Reply.text("two"))
    mem = memory_paths(Paths.for_cwd(repo))
    if stale:
        mem.lock_file.parent.mkdir(parents=True, exist_ok=True)
        mem.lock_file.write_text("999999999")
    first = Driver(fake_llm, repo, ["--prompt", "first", "--then", "dream"]).start()
    second = Driver(fake_llm, repo, ["--prompt", "second", "--then", "dream"]).start()
    # One dream is held at the server, so it cannot end: the other process must find the lock taken
    # (and exit), or, if the lock failed, its dream would arrive too.
    wait_until(lambda: script.count("dream") == 2 or (script.count("dream") == 1 and not (first.alive() and second.alive())), what="one dream held, the other process done")
    script.released.set()
    outcomes = [d.finish() for d in (first, second)]
    dreams = [next(line for line in out if line["event"] == "dream") for out in outcomes]
    assert script.count("dream") == 1, "exactly one dream reached the model"
    assert sorted(d["state"] for d in dreams) == ["done", "skipped"]
    assert [d["detail"] for d in dreams if d["state"] == "skipped"] == ["another process is consolidating memories"]
    assert not mem.lock_file.exists()
    assert read_meta(mem.meta_file).last_dream_status == "noop"


class TwoExtractions(Script):
    """Both extraction agents are answered round by round, together: each writes its own memory in
    the first round and finishes in the second, so both files exist before either rebuilds the index."""

    def __init__(self, targets: dict[str, Path]) -> None:
        super().__init__()
        self.targets = targets
        self.rounds: dict[str, int] = {}
        self.barriers = {1: threading.Barrier(2, timeout=60), 2: threading.Barrier(2, timeout=60)}

    def __call__(self, request: RecordedRequest) -> Reply | None:
        if caller_of(request) != "extract":
            return super().__call__(request)
        conversation = " ".join(str(m.get("content")) for m in request.messages if m.get("role") != "system")
        prompt = next(p for p in self.targets if p in conversation)
        with self._lock:
            self.received.append(("extract", request))
            self.rounds[prompt] = round_ = self.rounds.get(prompt, 0) + 1
        if round_ in self.barriers:
            self.barriers[round_].wait()
        if round_ > 1:
            return Reply.text("Saved.")
        name = prompt.split()[-1]
        return Reply.tool_calls([(f"w-{name}", "write_file", {"path": str(self.targets[prompt]), "content": MEMORY.format(name=name)})])


@pytest.mark.soak
@pytest.mark.timeout(180)
def test_two_processes_extracting_at_once_lose_nothing(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    mem = memory_paths(Paths.for_cwd(repo))
    prompts = {"we always rebase": mem.project_root / "feedback" / "rebase.md", "we always squash": mem.project_root / "feedback" / "squash.md"}
    script = TwoExtractions(prompts)
    attach(fake_llm, script).add("main", Reply.text("Noted."), Reply.text("Noted."))
    drivers = [Driver(fake_llm, repo, ["--prompt", p, "--extract"]).start() for p in prompts]
    outputs = [d.finish() for d in drivers]
    assert [next(l for l in out if l["event"] == "extraction")["state"] for out in outputs] == ["done", "done"], outputs
    for prompt, path in prompts.items():
        assert parse_memory_text(path.read_text(encoding="utf-8")).name == prompt.split()[-1]
    assert check_memory_files(mem) == 2
    index = mem.index_file(MemoryScope.PROJECT).read_text(encoding="utf-8")
    assert "[rebase]" in index and "[squash]" in index, index
    json.loads(mem.meta_file.read_text(encoding="utf-8"))
    json.loads(mem.cursor_file.read_text(encoding="utf-8"))
    # Each session keeps its own record, with only its own words.
    files = session_files(Paths.for_cwd(repo).chats_dir)
    assert len(files) == 2
    assert sorted(tuple(recorded_prompts(f)) for f in files) == sorted((p,) for p in prompts)
    for path in files:
        assert check_record(path) == []
        assert {r.session_id for r in load_session(path).records} == {path.stem}
    record_property(BYTES_LOST, sum(len(p.encode()) for p in prompts if not any(p in recorded_prompts(f) for f in files)))
