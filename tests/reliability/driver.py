"""A small agent process for the crash and two-process scenarios: the test kills it with SIGKILL.

Run as ``python -m tests.reliability.driver --cwd REPO ...`` with the endpoint
(``OPENAI_BASE_URL`` and friends) and ``AGENTCTX_HOME`` in the environment, the
way a user's shell would start the app. It builds the real runtime, optionally
seeds a long history, runs one turn, lets background memory work finish, then
does what ``--then`` says. Progress goes to stdout as JSON lines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from app.config import load_settings
from app.context.memory import MemoryScope
from app.context.memory.index import rebuild_index
from app.core.events import ApprovalNeeded, Decision
from app.core.history import Message
from app.paths import Paths
from app.runtime import Runtime, build_runtime


def say(event: str, **fields: object) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="driver")
    parser.add_argument("--cwd", type=Path, required=True)
    parser.add_argument("--prompt")
    parser.add_argument("--continue", dest="continue_latest", action="store_true")
    parser.add_argument("--yolo", action="store_true")
    parser.add_argument("--extract", action="store_true", help="memory extraction after the turn")
    parser.add_argument("--seed", type=int, default=0, help="long exchanges recorded before the turn")
    parser.add_argument("--window", type=int, default=32_000)
    parser.add_argument("--then", choices=("exit", "dream", "index"), default="exit")
    return parser.parse_args(argv)


def build(args: argparse.Namespace) -> Runtime:
    paths = Paths.for_cwd(args.cwd)
    settings = load_settings(paths, {})
    settings.model.max_retries = 0
    settings.model.context_window = args.window
    settings.memory.recall_model = False
    settings.memory.extraction = args.extract
    settings.memory.dream = False  # only when asked for, by --then dream
    settings.compaction.auto_delay_seconds = 0
    settings.compaction.quality_check = False
    if args.yolo:
        settings.approval_mode = "yolo"
    return build_runtime(settings, paths, continue_latest=args.continue_latest)


def seed(runtime: Runtime, exchanges: int) -> None:
    """A long conversation, recorded as a real one would be, so the next turn has to compact."""
    assert runtime.agent is not None
    for i in range(exchanges):
        for message in (Message.user(f"seeded question {i}"), Message(role="assistant", content=f"seeded answer {i} " + "w" * 4000)):
            runtime.recorder.append_message(message)
            runtime.agent.history.append(message)


async def index_forever(runtime: Runtime) -> None:
    """Write memories and rebuild the index, over and over, until killed."""
    store = runtime.memory.store
    for i in range(1_000_000):
        store.write(MemoryScope.PROJECT, "project", name=f"fact {i:05d}", description=f"the fact number {i} " + "x" * 80, body=f"Fact {i}.")
        rebuild_index(runtime.memory.mem, MemoryScope.PROJECT)
        say("indexed", count=i + 1)


async def main(argv: list[str]) -> int:
    args = parse_args(argv)
    runtime = build(args)
    assert runtime.agent is not None, "the driver needs OPENAI_BASE_URL and OPENAI_MODEL"
    say("ready", session_id=runtime.session_id, pid_file=str(runtime.memory.mem.lock_file))
    try:
        if args.seed:
            seed(runtime, args.seed)
        if args.prompt:
            final = None
            async for event in runtime.agent.run(args.prompt):
                if isinstance(event, ApprovalNeeded) and event.future is not None and not event.future.done():
                    event.future.set_result(Decision.APPROVE)
                final = event
            say("turn", kind=final.kind if final else None)
            await runtime.memory.drain(120)
            say("extraction", state=runtime.memory.extraction.state, detail=runtime.memory.extraction.detail)
        if args.then == "dream":
            started = runtime.memory.dream_now()
            await runtime.memory.drain(120)
            say("dream", started=started, state=runtime.memory.dream.state, detail=runtime.memory.dream.detail, at=time.time())
        elif args.then == "index":
            await index_forever(runtime)
    finally:
        await runtime.aclose()
    say("exit")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
