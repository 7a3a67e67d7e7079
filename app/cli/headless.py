"""One turn without the TUI: ``agentctx-tui -p "question"``.

Output formats: ``text`` streams the answer; ``json`` prints one object at the
end; ``stream-json`` prints every core event as one JSON line. Exit codes: 0 the
turn finished, 1 the model or a tool failed it (message on stderr), 143 / 129 a
SIGTERM / SIGHUP ended it (the partial answer is recorded, as Ctrl+C records it:
``app/exit_signals.py``), 130 Ctrl+C.

Nothing the model or a file says can drive the terminal: in text output the
answer and every stderr line go through ``inert_stream_text`` (control characters
shown, not obeyed); JSON output escapes them in its strings.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time
from typing import IO, Any

from app.cli.exit_codes import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from app.core.events import (
    ApprovalNeeded,
    CompactionFinished,
    Event,
    Notice,
    Retrying,
    StreamReset,
    TextDelta,
    ToolCallFinished,
    TurnCancelled,
    TurnFailed,
    TurnFinished,
)
from app.exit_signals import ExitSignals, exit_code, let_go_of_dead_terminal, signal_name
from app.inert import inert_stream_text as shown
from app.project_layer import ignored_notice
from app.runtime import Runtime


async def run_headless(
    runtime: Runtime,
    prompt: str,
    output_format: str,
    *,
    out: IO[str] = sys.stdout,
    err: IO[str] = sys.stderr,
    signals: ExitSignals | None = None,
) -> int:
    agent = runtime.agent
    assert agent is not None, "run_headless needs a configured endpoint"
    started = time.monotonic()
    tool_calls: list[dict[str, Any]] = []
    final: Event | None = None
    printed: list[str] = []  # the last text written to stdout, to end the answer with a line break
    if output_format == "stream-json":
        _line(out, {"type": "session", "session_id": runtime.session_id, "model": runtime.model_label})
    for warning in runtime.warnings:
        print(shown(f"warning: {warning}"), file=err)
    ignored = runtime.untrusted_changes()
    if ignored:  # one line: what this untrusted folder's project layer would have changed, and how to apply it
        print(shown(f"warning: {ignored_notice(ignored)}"), file=err)
    for problem in await runtime.start_session("resume" if runtime.resumed_messages else "startup"):
        print(shown(f"warning: {problem}"), file=err)
    for problem in await _mcp_ready(runtime):
        print(shown(f"warning: {problem}"), file=err)
    if runtime.mcp is not None:
        from app.mcp.connection import NotConnected
        from app.mcp.mentions import MentionError, expand_mcp

        try:
            prompt, problems = await expand_mcp(runtime.mcp, prompt)
        except (MentionError, NotConnected) as exc:
            print(shown(f"error: {exc}"), file=err)
            return EXIT_USAGE
        for problem in problems:
            print(shown(f"warning: {problem}"), file=err)
    async for event in agent.run(prompt):
        if isinstance(event, ApprovalNeeded) and event.future is not None and not event.future.done():
            event.future.cancel()  # never happens non-interactively; guard against a hang all the same
        if isinstance(event, ToolCallFinished):
            tool_calls.append(
                {"id": event.call.id, "name": event.call.name, "arguments": event.call.arguments, "status": event.status, "summary": event.summary}
            )
        if isinstance(event, (TurnFinished, TurnFailed, TurnCancelled)):
            final = event
        if output_format == "stream-json":
            _line(out, event.to_json())
        elif output_format == "text":
            _print_text_event(event, out, err)
            if isinstance(event, TextDelta) and event.text:
                printed[:] = [event.text]
            elif isinstance(event, StreamReset):
                printed[:] = ["\n"]
    duration_ms = int((time.monotonic() - started) * 1000)
    stopped_by = signals.received if signals is not None and isinstance(final, TurnCancelled) else None
    if output_format == "json":
        _line(out, _result_object(runtime, final, tool_calls, duration_ms, stopped_by))
    elif output_format == "text" and (isinstance(final, (TurnFinished, TurnFailed)) or stopped_by):
        if printed and not printed[-1].endswith("\n"):
            out.write("\n")
        out.flush()
    if isinstance(final, TurnFailed):
        print(shown(f"error: {final.message}"), file=err)
        return EXIT_FAILED
    if stopped_by is not None:
        print(stopped_message(runtime, stopped_by), file=err)
        return exit_code(stopped_by)
    if not isinstance(final, TurnFinished):
        print("error: the turn did not finish", file=err)
        return EXIT_FAILED
    return EXIT_OK


async def _mcp_ready(runtime: Runtime) -> list[str]:
    """A headless turn has one chance to use the servers: wait for them to list their tools,
    all at once, each at most mcp.connect_timeout (30 s by default)."""
    manager = runtime.mcp
    if manager is None:
        return []
    manager.start()
    await manager.wait_listed()
    problems = []
    for connection in manager.connections.values():
        if connection.status != "connected":
            tail = connection.stderr_tail().splitlines()[-3:]
            problems.append(connection.describe_unavailable().splitlines()[0] + ("" if not tail else " stderr: " + " | ".join(tail)))
    return problems


def _print_text_event(event: Event, out: IO[str], err: IO[str]) -> None:
    if isinstance(event, TextDelta):
        out.write(shown(event.text))
        out.flush()
    elif isinstance(event, StreamReset):
        out.write("\n")
        print("warning: the stream broke; the answer restarts below", file=err)
    elif isinstance(event, Retrying):
        print(shown(f"warning: {event.reason} Retrying in {event.delay:.1f} s (attempt {event.attempt} of {event.max_attempts})."), file=err)
    elif isinstance(event, Notice) and event.level in ("warning", "error"):
        print(shown(f"{event.level}: {event.text}"), file=err)
    elif isinstance(event, ToolCallFinished):
        print(shown(f"[{event.status}] {event.summary}"), file=err)
    elif isinstance(event, CompactionFinished) and not event.ok:
        print(shown(f"warning: {event.message}"), file=err)


def stopped_message(runtime: Runtime, signum: int) -> str:
    return (
        f"error: stopped by {signal_name(signum)}; what was answered so far is saved in session {runtime.session_id}"
        f" (agentctx-tui -r {runtime.session_id} goes on from there)"
    )


def _result_object(
    runtime: Runtime, final: Event | None, tool_calls: list[dict[str, Any]], duration_ms: int, stopped_by: int | None = None
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "type": "result",
        "session_id": runtime.session_id,
        "model": runtime.model_label,
        "duration_ms": duration_ms,
        "tool_calls": tool_calls,
    }
    if isinstance(final, TurnFinished):
        result.update(is_error=False, result=final.result, usage=final.usage.to_dict())
    else:
        message = final.message if isinstance(final, TurnFailed) else "the turn did not finish"
        if stopped_by is not None:
            message = f"stopped by {signal_name(stopped_by)}"
        result.update(is_error=True, result="", error=message)
    return result


def _line(out: IO[str], obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")
    out.flush()


def memory_drain_seconds(runtime: Runtime, err: IO[str]) -> float:
    """With ``memory.headless_background: true``, how long to wait for memory work before exiting
    (its agents' wall-clock limit), said on stderr; 0 otherwise."""
    memory = runtime.memory
    if not memory.settings.headless_background or not memory.busy:
        return 0.0
    bound = memory.background_bound()
    print(f"memory: waiting for memory extraction to finish before exiting (at most {bound:.0f} s; memory.headless_background is on)", file=err)
    return bound


def run(runtime: Runtime, prompt: str, output_format: str) -> int:
    signals = ExitSignals()

    async def run_and_close() -> int:
        main = asyncio.current_task()
        assert main is not None

        def stop(signum: int) -> None:
            # Like Ctrl+C in the TUI: the turn ends as cancelled (its partial answer and children dealt
            # with by the agent); before or after the turn there is nothing to keep, so the run just ends.
            if runtime.agent is None or not runtime.agent.cancel():
                main.cancel()

        signals.install(asyncio.get_running_loop(), stop)
        drain = 0.0
        try:
            code = await run_headless(runtime, prompt, output_format, signals=signals)
            if signals.received is None:
                drain = memory_drain_seconds(runtime, sys.stderr)
            return code
        except asyncio.CancelledError:
            if signals.received is None:
                raise
            print(stopped_message(runtime, signals.received), file=sys.stderr)
            return exit_code(signals.received)
        finally:
            await runtime.aclose(drain_seconds=drain)
            signals.uninstall()
            if drain:
                task = runtime.memory.extraction
                print(shown(f"memory: extraction {task.state}{f' ({task.detail})' if task.detail else ''}"), file=sys.stderr)

    try:
        return asyncio.run(run_and_close())
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except OSError:
        if signals.received != signal.SIGHUP:
            raise
        # The terminal that closed took stdout or stderr with it: the record is written; exit as hung up.
        return exit_code(signals.received)
    finally:
        if signals.received == signal.SIGHUP:
            let_go_of_dead_terminal()
