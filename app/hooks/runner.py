"""Running hooks: one JSON object on stdin, at most one JSON object back on stdout, a timeout.

A hook that fails, hangs, floods its output or prints something else never breaks
the turn: the problem is reported once (through ``report``) and the hook's answer
is ignored. Project hooks run only in a folder the user trusts.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:  # a session without hooks never parses one (app/hooks/bridge.py)
    from app.hooks.spec import HookSpec

MAX_OUTPUT_BYTES = 256 * 1024
MAX_CONTEXT_CHARS = 4_000


@dataclass
class HookResult:
    """One run of one hook: the answer it gave, or what went wrong (its answer is then ignored)."""

    spec: HookSpec
    ok: bool
    answer: dict[str, Any] = field(default_factory=dict)
    problem: str = ""
    exit_code: int | None = None
    seconds: float = 0.0

    @property
    def summary(self) -> str:
        if not self.ok:
            return f"failed: {self.problem}"
        keys = ", ".join(sorted(self.answer)) or "no answer"
        return f"ok in {self.seconds:.2f} s ({keys})"


def sanitize_context(text: str) -> str:
    """Hook text bound for a prompt: tags escaped, trimmed, cut at 4,000 characters."""
    return text.replace("<", "&lt;").replace(">", "&gt;").strip()[:MAX_CONTEXT_CHARS]


class HookRunner:
    def __init__(
        self,
        specs: Sequence[HookSpec],
        cwd: Path,
        *,
        trusted: Callable[[], bool],
        report: Callable[[str], None] | None = None,
        session_id: str = "",
        last_runs_file: Path | None = None,
    ) -> None:
        self.specs = list(specs)
        self.last_runs_file = last_runs_file
        self.cwd = cwd
        self.trusted = trusted
        self.report = report or (lambda text: None)
        self.session_id = session_id
        self.last: dict[str, HookResult] = {}
        self._reported: set[tuple[str, str]] = set()

    def for_event(self, event: str) -> list[HookSpec]:
        return [s for s in self.specs if s.event == event]

    def has(self, event: str) -> bool:
        return any(s.event == event for s in self.specs)

    async def run(self, event: str, payload: dict[str, Any], match: str | None = None) -> list[HookResult]:
        """Run every hook of ``event`` whose matcher fits ``match``, in order; skipped untrusted ones are said once."""
        results: list[HookResult] = []
        for spec in self.for_event(event):
            if not spec.matches(match):
                continue
            if spec.layer == "project" and not self.trusted():
                self._report_once(spec, "untrusted", f"The project hook '{spec.label}' did not run: this folder is not trusted (/trust or 'agentctx-tui trust' trusts it).")
                continue
            result = await self._run_one(spec, {"hook_event_name": event, "session_id": self.session_id, "cwd": str(self.cwd), **payload})
            self.last[spec.key] = result
            from app.hooks.last_runs import save_last_run

            save_last_run(self.last_runs_file, spec.key, result.summary, self.session_id)
            if not result.ok:
                self._report_once(spec, result.problem, f"Hook '{spec.label}' was ignored: {result.problem}.")
            results.append(result)
        return results

    async def _run_one(self, spec: HookSpec, payload: dict[str, Any]) -> HookResult:
        started = time.monotonic()
        try:
            process = await asyncio.create_subprocess_exec(
                *spec.command,
                cwd=self.cwd,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                env={**os.environ, "AGENTCTX_HOOK_EVENT": spec.event},
            )
        except OSError as exc:
            return HookResult(spec, False, problem=f"it could not be started ({exc.strerror or exc})")
        try:
            stdout, stderr = await asyncio.wait_for(self._talk(process, payload), spec.timeout)
        except asyncio.TimeoutError:
            _kill(process)
            await _reap(process)
            return HookResult(spec, False, problem=f"it did not finish within {spec.timeout:g} s", seconds=time.monotonic() - started)
        except asyncio.CancelledError:
            _kill(process)
            raise
        seconds = time.monotonic() - started
        if stdout is None:
            return HookResult(spec, False, problem=f"it printed more than {MAX_OUTPUT_BYTES // 1024} KB", seconds=seconds)
        if process.returncode:
            detail = (stderr or b"").decode("utf-8", "replace").strip().splitlines()
            reason = f": {detail[0][:200]}" if detail else ""
            return HookResult(spec, False, problem=f"it exited with code {process.returncode}{reason}", exit_code=process.returncode, seconds=seconds)
        answer, problem = _parse_answer(stdout)
        if problem:
            return HookResult(spec, False, problem=problem, exit_code=0, seconds=seconds)
        return HookResult(spec, True, answer=answer, exit_code=0, seconds=seconds)

    async def _talk(self, process: asyncio.subprocess.Process, payload: dict[str, Any]) -> tuple[bytes | None, bytes]:
        """Send the payload; read both outputs to the end (a pipe left full would hang the exit)."""
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        try:
            process.stdin.write(json.dumps(payload, ensure_ascii=False).encode("utf-8"))
            await process.stdin.drain()
            process.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass  # a hook that does not read its input may still answer
        (stdout, flooded), (stderr, _) = await asyncio.gather(
            _read_capped(process.stdout, MAX_OUTPUT_BYTES, process), _read_capped(process.stderr, 8192, None)
        )
        await process.wait()
        return (None if flooded else stdout), stderr

    def _report_once(self, spec: HookSpec, kind: str, text: str) -> None:
        key = (spec.key, kind)
        if key not in self._reported:
            self._reported.add(key)
            self.report(text)


async def _read_capped(stream: asyncio.StreamReader, cap: int, process: asyncio.subprocess.Process | None) -> tuple[bytes, bool]:
    """Up to ``cap`` bytes; past it the process is stopped (when given) and the rest is drained unread."""
    kept = bytearray()
    over = False
    while chunk := await stream.read(65536):
        if over:
            continue
        kept += chunk
        if len(kept) > cap:
            over = True
            del kept[cap:]
            if process is not None:
                _kill(process)
    return bytes(kept), over


def _parse_answer(stdout: bytes) -> tuple[dict[str, Any], str]:
    text = stdout.decode("utf-8", "replace").strip()
    if not text:
        return {}, ""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}, "it printed something that is not one JSON object"
    if not isinstance(value, dict):
        return {}, "it printed JSON that is not an object"
    return value, ""


async def _reap(process: asyncio.subprocess.Process) -> None:
    """Collect a killed hook; a pipe nobody drains any more must not hold us here."""
    try:
        await asyncio.wait_for(process.wait(), 2)
    except asyncio.TimeoutError:
        pass


def _kill(process: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(process.pid, 9)
    except (ProcessLookupError, PermissionError):
        pass


def context_from(results: Sequence[HookResult]) -> str:
    """The ``additionalContext`` of every hook that gave one, sanitized and capped."""
    parts = [str(r.answer.get("additionalContext", "")) for r in results if r.ok and r.answer.get("additionalContext")]
    return sanitize_context("\n\n".join(parts)) if parts else ""


def decision_from(results: Sequence[HookResult]) -> tuple[str, str]:
    """The strictest decision any hook gave (deny > block > ask > allow) and its reason; ("", "") for none."""
    order = {"deny": 4, "block": 4, "ask": 2, "allow": 1}
    best, reason = "", ""
    for result in results:
        decision = str(result.answer.get("decision", "")).lower() if result.ok else ""
        if order.get(decision, 0) > order.get(best, 0):
            best, reason = decision, str(result.answer.get("reason", ""))
    return best, reason
