"""Running a shell command in its own process group, so it can be stopped completely.

``bash -c`` may start children (``make`` -> compilers, ``npm test`` -> node);
killing only bash would leave them running and holding the output pipe. A new
session makes bash the leader of a process group that ``killpg`` reaches as a
whole.

No command outlives the agent, however the agent ends (see ``app.core.tools.orphans``):
on Linux bash gets ``PR_SET_PDEATHSIG`` (SIGKILL when the agent's thread dies, even
by ``kill -9``), every running group is killed at a normal exit, and a watchdog
process kills the groups still listed when the agent's end of its pipe closes,
which reaches the children bash started (they do not inherit the death signal).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path

from app.core.tools import orphans

if TYPE_CHECKING:
    from app.core.tools.sandbox import Confinement

# How long processes get to exit after SIGTERM before SIGKILL.
TERM_GRACE_SECONDS = 1.0
# After bash exits, how long background children may keep the pipe open before they are stopped.
DRAIN_GRACE_SECONDS = 0.3
_CHUNK = 64 * 1024
_EXIT_POLL_SECONDS = 0.05


# UTF-8 continuation bytes: every other byte starts a character, so counting those counts characters.
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


@dataclass
class OutputCapture:
    """The first and last ``keep`` bytes of a command's output, and how many characters came between.

    A command may print gigabytes (``yes``, a runaway log) until its timeout; only
    what can be shown is kept, so memory stays bounded whatever it prints.
    """

    keep: int | None = None  # None: keep everything
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    omitted_chars: int = 0

    def add(self, chunk: bytes) -> None:
        if self.keep is None:
            self.head += chunk
            return
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > 2 * self.keep:  # trimmed now and then, not on every chunk
            self._drop(len(self.tail) - self.keep)

    def _drop(self, count: int) -> None:
        dropped = bytes(self.tail[:count])
        self.omitted_chars += len(dropped.translate(None, _CONTINUATION_BYTES))
        del self.tail[:count]

    def text(self) -> str:
        """Head and tail joined: what was dropped in between is only counted (``omitted_chars``)."""
        if self.keep is not None and len(self.tail) > self.keep:
            self._drop(len(self.tail) - self.keep)
        return bytes(self.head + self.tail).decode("utf-8", errors="replace")


@dataclass
class CommandOutcome:
    """How a shell command ended: its output (the middle cut when long), exit code, and what had to be killed."""

    output: str
    exit_code: int | None  # None when the command was killed for running too long
    timed_out: bool = False
    stopped_background: bool = False  # background children outlived bash and were killed
    omitted_chars: int = 0  # cut from the middle of a long output (see OutputCapture)


async def run_command(
    command: str,
    cwd: Path,
    timeout: float,
    *,
    keep_bytes: int | None = None,
    env: Mapping[str, str] | None = None,
    confinement: Confinement | None = None,
) -> CommandOutcome:
    """Run ``bash -c command``; stdout and stderr merged, stdin empty.

    On timeout the whole group is killed and the output so far is returned; on
    cancellation the group is killed and CancelledError propagates. With
    ``keep_bytes`` only that much of the start and of the end of the output is kept. With
    ``confinement`` the command runs in the sandbox (app/core/tools/sandbox.py).
    """
    process = await _spawn(command, cwd, env, confinement)
    capture = OutputCapture(keep_bytes)
    assert process.stdout is not None  # stdout=PIPE guarantees it
    reader = asyncio.create_task(_collect(process.stdout, capture))
    timed_out = False
    try:
        await asyncio.wait_for(_wait_for_exit(process, reader), timeout)
    except TimeoutError:
        timed_out = True
        await stop_group(process)
    except asyncio.CancelledError:
        reader.cancel()
        await stop_group(process)
        orphans.groups.finished(process.pid)
        raise
    stopped_background = await _drain(process, reader)
    orphans.groups.finished(process.pid)
    output = capture.text()
    exit_code = None if timed_out else process.returncode
    return CommandOutcome(output, exit_code, timed_out=timed_out, stopped_background=stopped_background, omitted_chars=capture.omitted_chars)


async def _spawn(
    command: str, cwd: Path, env: Mapping[str, str] | None = None, confinement: Confinement | None = None
) -> asyncio.subprocess.Process:
    """Start ``bash -c command`` in its own process group.

    The fork happens before the pipes are connected, so a cancellation while
    spawning would leave a running command behind (asyncio kills bash alone, not
    what it started): the spawn is shielded and the group stopped afterwards.
    """
    spawning = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            "bash",
            "-c",
            command,
            cwd=str(cwd),
            env=dict(env) if env is not None else None,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_preexec(confinement),
        )
    )
    try:
        process = await asyncio.shield(spawning)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await stop_group(await spawning)
        raise
    orphans.groups.started(process.pid)
    return process


def _preexec(confinement: Confinement | None) -> Callable[[], None] | None:
    if confinement is None:
        return orphans.die_with_parent()
    from app.core.tools.sandbox import confining_preexec, sandbox_status

    return confining_preexec(confinement, sandbox_status(), then=orphans.die_with_parent())


async def _wait_for_exit(process: asyncio.subprocess.Process, reader: asyncio.Task[None]) -> None:
    """Until bash exits.

    ``Process.wait()`` alone also waits for the output pipe to close, which a
    background child (``server &``) can keep open forever; so wait for the end
    of the output, checking for bash's exit status in between.
    """
    while process.returncode is None and not reader.done():
        await asyncio.wait({reader}, timeout=_EXIT_POLL_SECONDS)
    if reader.done():
        await process.wait()  # the pipe is closed, so this now waits for the exit alone


async def _collect(stream: asyncio.StreamReader, capture: OutputCapture) -> None:
    while True:
        chunk = await stream.read(_CHUNK)
        if not chunk:
            return
        capture.add(chunk)


async def _drain(process: asyncio.subprocess.Process, reader: asyncio.Task[None]) -> bool:
    """Wait for the rest of the output; True when leftover children had to be killed."""
    try:
        # shield: a timeout here must not cancel the reader, which still has output to collect.
        await asyncio.wait_for(asyncio.shield(reader), DRAIN_GRACE_SECONDS)
        return False
    except TimeoutError:
        pass
    except asyncio.CancelledError:
        reader.cancel()
        _signal_group(process, signal.SIGKILL)
        raise
    _signal_group(process, signal.SIGKILL)
    try:
        await asyncio.wait_for(asyncio.shield(reader), TERM_GRACE_SECONDS)
    except TimeoutError:
        reader.cancel()  # something outside the group holds the pipe; give up on the rest
    return True


async def stop_group(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the group, give it a moment, then SIGKILL whatever is left."""
    _signal_group(process, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), TERM_GRACE_SECONDS)
    except TimeoutError:
        pass
    finally:
        # Always: bash may have exited on SIGTERM while a child that ignores it lives on.
        _signal_group(process, signal.SIGKILL)


def _signal_group(process: asyncio.subprocess.Process, sig: signal.Signals) -> None:
    # The group id is bash's pid (start_new_session); it outlives bash while any member lives.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)
