"""What a configured hook is, and reading one from settings with a clear message for each mistake."""

from __future__ import annotations

import re
import shlex
from app.dataclass import dataclass
from typing import Any

EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "InstructionsLoaded",
    "Stop",
)
DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 600.0


@dataclass(frozen=True)
class HookSpec:
    """One configured hook: the event it answers, the command it runs, and the file it came from."""

    event: str
    command: tuple[str, ...]  # argv: never run through a shell
    matcher: str | None = None  # a regex on what the event is about (tool name, trigger, source)
    timeout: float = DEFAULT_TIMEOUT
    layer: str = "user"  # user | project: project hooks run only in a trusted folder
    file: str = ""

    @property
    def key(self) -> str:
        return f"{self.event}|{self.matcher or '*'}|{' '.join(self.command)}|{self.file}"

    @property
    def label(self) -> str:
        match = f" [{self.matcher}]" if self.matcher else ""
        return f"{self.event}{match}: {' '.join(self.command)}"

    def matches(self, value: str | None) -> bool:
        if not self.matcher or self.matcher == "*":
            return True
        return value is not None and re.fullmatch(self.matcher, value) is not None


def parse_hook(entry: dict[str, Any]) -> tuple[HookSpec | None, str]:
    """A HookSpec, or None and why the entry cannot be used."""
    where = f"{entry.get('file', 'settings')}: hook for {entry.get('event')!r}"
    event = entry.get("event")
    if event not in EVENTS:
        return None, f"{where}: unknown event (known: {', '.join(EVENTS)})"
    raw = entry.get("command")
    if isinstance(raw, str):
        try:
            command = tuple(shlex.split(raw))
        except ValueError as exc:
            return None, f"{where}: the command cannot be split into words ({exc})"
    elif isinstance(raw, list) and all(isinstance(part, str) for part in raw):
        command = tuple(raw)
    else:
        return None, f"{where}: 'command' must be a string or a list of strings"
    if not command:
        return None, f"{where}: 'command' is empty"
    matcher = entry.get("matcher")
    if matcher is not None:
        if not isinstance(matcher, str):
            return None, f"{where}: 'matcher' must be text (a regular expression)"
        try:
            re.compile(matcher)
        except re.error as exc:
            return None, f"{where}: 'matcher' is not a valid regular expression ({exc})"
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        return None, f"{where}: 'timeout' must be a positive number of seconds"
    spec = HookSpec(
        event=event,
        command=command,
        matcher=matcher,
        timeout=min(float(timeout), MAX_TIMEOUT),
        layer="project" if entry.get("layer") == "project" else "user",
        file=str(entry.get("file", "")),
    )
    return spec, ""
