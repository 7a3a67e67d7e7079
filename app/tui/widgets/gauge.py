"""The budget gauge: how full the context window is, with the warn / auto / hard ticks, always on screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from app.context.compaction.thresholds import compute_thresholds
from app.tui.widgets.status import format_tokens

if TYPE_CHECKING:
    from app.core.request import AssembledRequest

BAND_COLOURS = {"ok": "$success", "warn": "$warning", "auto": "$error", "hard": "$error"}
TICKS = (("warn", "│"), ("auto", "┃"), ("hard", "█"))


class BudgetGauge(Widget):
    _recall_tip = ""  # the recalled memories' titles and paths, for the tooltip

    tokens: reactive[int] = reactive(0)
    window: reactive[int] = reactive(0)
    pct: reactive[float | None] = reactive(None)  # compaction.pct; None is the default formula
    origin: reactive[str] = reactive("")  # where an explicit pct was set
    source: reactive[str] = reactive("")  # reported | estimate
    pending: reactive[int] = reactive(0)  # tokens the files @mentioned in the prompt would add
    recalled: reactive[str] = reactive("")  # "2 memories by BM25F": what recall put into this turn
    opening: reactive[bool] = reactive(False)  # a model is configured and its session is still being opened

    DEFAULT_CSS = """
    BudgetGauge { height: 1; }
    """

    def set_usage(self, tokens: int, window: int | None = None, *, source: str = "") -> None:
        if window is not None:
            self.window = window
        self.tokens = max(0, tokens)
        if source:
            self.source = source

    def show_recall(self, request: AssembledRequest) -> None:
        """Say what the current turn's request carries from memory, and which path chose it."""
        from app.context.memory.prompt import RECALL_PATH_LABELS, recall_in_request

        seen = recall_in_request(request)
        count = len(seen.memories)
        if not count:
            self.recalled, self._recall_tip = "", ""
            return
        how = " + ".join(RECALL_PATH_LABELS.get(p, p) for p in seen.paths) or "recall"
        self.recalled = f"{count} {'memory' if count == 1 else 'memories'} by {how}"
        self._recall_tip = "Recalled: " + "; ".join(f"{title} ({rel})" for title, rel in seen.memories)

    @property
    def band(self) -> str:
        if not self.window:
            return "ok"
        return compute_thresholds(self.window, self.pct, origin=self.origin).band(self.tokens)

    def render(self) -> Content:
        if not self.window:
            # The first frame (and the replayed one) is drawn before the session exists: say so, rather
            # than that no model is configured.
            said = "opening the session…" if self.opening else "no model configured"
            return Content.from_markup(f"[$text-muted]Context: {said}[/]")
        thresholds = compute_thresholds(self.window, self.pct, origin=self.origin)
        # The ticks' meaning, on hover: the thresholds in force and where they came from.
        self.tooltip = (
            f"warn {thresholds.warn:,.0f} · auto-compact {thresholds.auto:,.0f} · hard {thresholds.hard:,.0f} tokens ({thresholds.source})"
        ) + (f"\n{self._recall_tip}" if self.recalled else "")
        left = max(0.0, 1 - self.tokens / self.window)
        label = f" {format_tokens(self.tokens)} / {format_tokens(self.window)} · Context left {left * 100:.0f}%"
        if self.source:
            label += f" ({self.source})"
        if self.pending:
            label += f" · +{format_tokens(self.pending)} @files"
        if self.recalled:
            label += f" · {self.recalled}"
        width = max(10, self.size.width - len(label) - 2)
        filled = min(width, round(width * self.tokens / self.window))
        cells = ["━"] * filled + ["─"] * (width - filled)
        for name, glyph in TICKS:
            position = min(width - 1, int(width * getattr(thresholds, name) / self.window))
            cells[position] = glyph
        colour = BAND_COLOURS[thresholds.band(self.tokens)]
        bar_filled = escape("".join(cells[:filled]))
        bar_rest = escape("".join(cells[filled:]))
        return Content.from_markup(f"[{colour}]{bar_filled}[/][$text-muted]{bar_rest}[/][{colour}]{escape(label)}[/]")
