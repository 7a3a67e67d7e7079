"""The instruction budget: a cap per file and a cap on all of them together (OpenClaw §1.3).

The caps scale with the model's window: a file may take 10 % of it and all files
25 % (4 chars a token), never less than OpenClaw's 20,000 / 60,000 chars. Real
AGENTS.md files run to 20-35 K chars and Qwen Code sends them whole; a fixed
20 K cap cut them in the middle of a word on every window.

Files are taken in order. Each gets ``min(per-file cap, what is left)``; a
file over its cap keeps whole head and tail lines around a marker. Once less than 64
chars are left, the remaining files are not injected at all. Chars are Python
code points (see truncation.py). Only file content counts: the
``--- Context from: … ---`` wrapper lines do not.
"""

from __future__ import annotations

import math
from math import floor
from collections.abc import Iterable
from app.dataclass import dataclass
from enum import StrEnum
from typing import NamedTuple

from app.context.instructions.truncation import clamp, truncate_middle

DEFAULT_PER_FILE_CAP = 20_000
DEFAULT_TOTAL_CAP = 60_000
CHARS_PER_TOKEN = 4
PER_FILE_WINDOW_SHARE = 0.10
TOTAL_WINDOW_SHARE = 0.25
MIN_REMAINING = 64
NEAR_LIMIT_RATIO = 0.85
CAUSE_PER_FILE = "per-file-limit"
CAUSE_TOTAL = "total-limit"

TRUNCATION_NOTICE = (
    "[Instruction files cut]\n"
    "Some instruction files above were cut to fit the instruction budget; each cut is marked where it happened.\n"
    "Read the lines a marker names before relying on what they cover."
)


class BudgetStatus(StrEnum):
    OK = "OK"
    TRUNCATED = "TRUNCATED"


class BudgetEntry(NamedTuple):
    # Shown in markers and messages: the display path.
    name: str
    text: str


@dataclass(frozen=True)
class BudgetCaps:
    """The two caps in chars: one file's, and all instruction files' together."""

    per_file: int
    total: int


@dataclass(frozen=True)
class BudgetedFile:
    """One instruction file after the budget: what of it is injected, and what cut it."""

    name: str
    # What is injected: the content, a truncated form of it, or "" when the budget ran out first.
    text: str
    raw_chars: int  # after rstrip
    injected_chars: int
    limit: int  # the per-file cap
    remaining_before: int  # total budget left when this file's turn came
    causes: tuple[str, ...] = ()
    near_limit: bool = False
    messages: tuple[str, ...] = ()

    @property
    def status(self) -> BudgetStatus:
        return BudgetStatus.TRUNCATED if self.injected_chars < self.raw_chars else BudgetStatus.OK

    @property
    def truncated(self) -> bool:
        return self.status is BudgetStatus.TRUNCATED

    @property
    def dropped(self) -> bool:
        """Not injected at all: the total budget was spent before this file."""
        return self.injected_chars == 0 and self.raw_chars > 0

    @property
    def cause(self) -> str | None:
        return self.causes[0] if self.causes else None


def window_defaults(window_tokens: object = None) -> BudgetCaps:
    """The default caps for a window of ``window_tokens``: 10 % / 25 % of it, at least OpenClaw's defaults."""
    window = _positive_int(window_tokens) or 0
    per_file = max(DEFAULT_PER_FILE_CAP, floor(window * CHARS_PER_TOKEN * PER_FILE_WINDOW_SHARE))
    total = max(DEFAULT_TOTAL_CAP, floor(window * CHARS_PER_TOKEN * TOTAL_WINDOW_SHARE))
    return BudgetCaps(per_file=per_file, total=total)


def resolve_caps(per_file_cap: object = None, total_cap: object = None, window_tokens: object = None) -> BudgetCaps:
    """Configured caps, floored; anything non-positive, non-finite or not a number means the default
    (scaled to ``window_tokens`` when given).

    With no total given it is at least the per-file cap, so one big file alone can still fill its cap.
    """
    defaults = window_defaults(window_tokens)
    per_file = _positive_int(per_file_cap) or defaults.per_file
    total = _positive_int(total_cap) or max(per_file, defaults.total)
    return BudgetCaps(per_file=per_file, total=max(1, total))


def apply_budget(
    files: Iterable[BudgetEntry | tuple[str, str]],
    per_file_cap: object = DEFAULT_PER_FILE_CAP,
    total_cap: object = DEFAULT_TOTAL_CAP,
) -> list[BudgetedFile]:
    caps = resolve_caps(per_file_cap, total_cap)
    remaining = caps.total
    out: list[BudgetedFile] = []
    stopped_message: str | None = None
    for name, text in files:
        content = text.rstrip()
        raw = len(content)
        if stopped_message is None and 0 < remaining < MIN_REMAINING:
            stopped_message = (
                f"the instruction budget has {remaining} chars left (<{MIN_REMAINING}); the remaining instruction files are left out (context.total_chars sets the budget)"
            )
            out.append(_dropped(name, raw, caps.per_file, remaining, (stopped_message, _skipped(name, raw, caps.total))))
            continue
        if stopped_message is not None or remaining <= 0:
            # OpenClaw stops here without a word; we name every file left out.
            out.append(_dropped(name, raw, caps.per_file, remaining, (_skipped(name, raw, caps.total),)))
            continue
        cap = min(caps.per_file, remaining)
        messages: tuple[str, ...] = ()
        injected = content
        if raw > cap:
            messages = (f"instruction file {name} is {raw:,} chars (limit {cap:,}); it is sent cut at a line boundary (context.per_file_chars sets the limit)",)
            injected = truncate_middle(content, cap, name)
        injected = clamp(injected, remaining)
        out.append(
            BudgetedFile(
                name=name,
                text=injected,
                raw_chars=raw,
                injected_chars=len(injected),
                limit=caps.per_file,
                remaining_before=remaining,
                causes=_causes(raw, caps.per_file, remaining),
                near_limit=_near(raw, caps.per_file),
                messages=messages,
            )
        )
        remaining -= len(injected)
    return out


def total_near_limit(files: Iterable[BudgetedFile], total_cap: object = DEFAULT_TOTAL_CAP) -> bool:
    total = resolve_caps(None, total_cap).total
    return sum(f.injected_chars for f in files) >= math.ceil(total * NEAR_LIMIT_RATIO)


def truncation_notice() -> str:
    """The fixed three lines added to the prompt whenever any file was truncated."""
    return TRUNCATION_NOTICE


def _skipped(name: str, raw: int, total: int) -> str:
    return f"instruction file {name} ({raw:,} chars) was left out: the instruction budget of {total:,} chars is spent (context.total_chars sets it)"


def _dropped(name: str, raw: int, limit: int, remaining: int, messages: tuple[str, ...]) -> BudgetedFile:
    # Budget analysis only blames the total when the file was over what was left; a file
    # skipped whole was cut by the total in any case, so it always carries that cause.
    causes = tuple(dict.fromkeys((*_causes(raw, limit, remaining), CAUSE_TOTAL)))
    return BudgetedFile(name, "", raw, 0, limit, max(remaining, 0), causes, _near(raw, limit), messages)


def _causes(raw: int, limit: int, remaining: int) -> tuple[str, ...]:
    causes: list[str] = []
    if raw > limit:
        causes.append(CAUSE_PER_FILE)
    if remaining < limit and raw > remaining:
        causes.append(CAUSE_TOTAL)
    return tuple(causes)


def _near(raw: int, limit: int) -> bool:
    return raw >= math.ceil(limit * NEAR_LIMIT_RATIO)


def _positive_int(value: object) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if not math.isfinite(number):
        return None
    floored = math.floor(number)
    return floored if floored > 0 else None
