"""The status line: model, approval mode, what the agent is doing, session. (Token use is the gauge's.)"""

from __future__ import annotations

import time

from rich.markup import escape
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static


def format_tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M".replace(".0M", "M")
    if count >= 1000:
        return f"{count / 1000:.1f}k".replace(".0k", "k")
    return str(count)


# Each mode in its own colour; the ones that run things without asking stand out.
MODE_STYLES = {
    "default": "$text-muted",
    "auto-edit": "$success",
    "plan": "$primary",
    "yolo": "reverse $error",
}


class StatusLine(Static):
    model: reactive[str] = reactive("")
    state: reactive[str] = reactive("idle")
    used_tokens: reactive[int] = reactive(0)
    context_window: reactive[int] = reactive(0)
    session_id: reactive[str] = reactive("")
    demo: reactive[bool] = reactive(False)
    memory: reactive[str] = reactive("")  # background memory work, while there is any
    mode: reactive[str] = reactive("")  # the approval mode (shift+tab cycles it); default is not shown
    # When the running turn started (time.monotonic()); its elapsed seconds follow the state.
    turn_started: reactive[float | None] = reactive(None)

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        if self.turn_started is not None:
            self.refresh()

    def elapsed(self) -> int | None:
        if self.turn_started is None or self.state in ("idle", "error", "waiting for approval"):
            return None
        return int(time.monotonic() - self.turn_started)

    def render(self) -> Content:
        parts: list[str] = []
        if self.demo:
            parts.append("[reverse $warning] DEMO [/] [$warning]scripted local model[/]")
        parts.append(f"[b]{escape(self.model or 'no model configured')}[/b]")
        if self.mode and self.mode != "default":  # as Qwen Code: only a mode that changes what runs unasked
            parts.append(f"[{MODE_STYLES.get(self.mode, '$text-muted')}]{escape(self.mode)}[/]")
        state_colour = {"idle": "$text-muted", "error": "$error", "waiting for approval": "$warning"}.get(self.state, "$accent")
        elapsed = self.elapsed()
        clock = f" {elapsed} s" if elapsed else ""  # from the first second on, as Qwen Code counts
        parts.append(f"[{state_colour}]{escape(self.state)}{clock}[/]")
        if self.memory:
            parts.append(f"[$accent]{escape(self.memory)}[/]")
        if self.session_id:
            parts.append(f"[$text-muted]session {escape(self.session_id[:8])}[/]")
        return Content.from_markup("  ·  ".join(parts))
