"""The live context map: the last request drawn as stacked blocks, each as tall as its share of the window.

Up/down (or k/j) move between blocks; Enter shows a block's exact text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.markup import escape
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from app.context.compaction.thresholds import Thresholds, compute_thresholds
from app.core.request import BUILTIN_TOOLS, AssembledRequest, RequestPart, tool_server
from app.tui.widgets.status import format_tokens

GROUP_COLOURS = {
    "System prompt": "$primary",
    "Instruction files": "$secondary",
    "Memory": "$success",
    "Skills": "$accent",
    "Tool schemas": "$foreground 30%",
    "Messages": "$warning 70%",
    "Tool results": "$error 60%",
    "Summaries": "$success 50%",
    "Reminders": "$accent 50%",
    "Streaming": "$warning",
}
# An instruction file sent cut stands out from the files sent whole.
CUT_COLOUR = "$warning"
MESSAGE_LABELS = {
    "user": "user messages",
    "assistant": "assistant replies",
    "tool_result": "tool results",
    "summary": "summaries",
    "reminder": "reminders",
    "prelude": "session prelude",
    "skills_listing": "skills listing",
}
# Block names of system sections that are too small to stand alone are folded into the next block.
_FOLD_KINDS = {"separator"}


@dataclass
class MapBlock:
    group: str
    name: str
    tokens: int
    parts: list[RequestPart] = field(default_factory=list)
    status: str = ""

    @property
    def text(self) -> str:
        # Folded-in separators count towards the size but are not worth reading.
        shown = [p for p in self.parts if p.kind not in _FOLD_KINDS] or self.parts
        if len(shown) == 1:
            return shown[0].text.strip("\n")
        return "\n\n".join(f"── {p.name} · {p.source} ──\n{p.text.strip()}" for p in shown)


def blocks_from_request(request: AssembledRequest) -> list[MapBlock]:
    """One block per system section, instruction file, memory and skills part; tools and messages pooled."""
    blocks: list[MapBlock] = []
    pending: list[RequestPart] = []
    pools: dict[str, MapBlock] = {}
    for part in request.parts:
        if part.kind in _FOLD_KINDS:
            pending.append(part)
            continue
        if part.kind == "tool_schema" or part.block == "messages":  # many small parts: pooled by kind
            # Tool schemas pool by source: the built-in tools, each MCP server, the deferred listing.
            key = f"tool_schema:{tool_server(part.name)}" if part.kind == "tool_schema" else part.kind
            pool = pools.get(key)
            if pool is None:
                label = _tool_label(key) if part.kind == "tool_schema" else MESSAGE_LABELS.get(key, key)
                pool = pools[key] = MapBlock(group=part.group, name=label, tokens=0)
                blocks.append(pool)
            pool.parts.append(part)
            pool.tokens += part.tokens
            continue
        folded = pending + [part]
        pending = []
        blocks.append(MapBlock(group=part.group, name=part.name, tokens=sum(p.tokens for p in folded), parts=folded, status=part.status))
    for key, pool in pools.items():
        pool.name = f"{pool.name} ({len(pool.parts)})"
    if pending and blocks:
        blocks[-1].parts.extend(pending)
        blocks[-1].tokens += sum(p.tokens for p in pending)
    return blocks


def _tool_label(key: str) -> str:
    source = key.split(":", 1)[1]
    return "tool schemas" if source == BUILTIN_TOOLS else f"{source} schemas"


class ContextMap(Widget, can_focus=True):
    """A column of blocks, heights proportional to tokens, with the window's threshold marks."""

    BINDINGS = [
        Binding("up,k", "move(-1)", "Previous block", show=False),
        Binding("down,j", "move(1)", "Next block", show=False),
        Binding("enter", "open", "Show text", show=False),
        Binding("home", "jump(0)", "First block", show=False),
        Binding("end", "jump(-1)", "Last block", show=False),
        Binding("escape", "leave", "Back to the prompt", show=False),
    ]

    selected: reactive[int] = reactive(0)

    @dataclass
    class Opened(Message):
        block: MapBlock

    class Left(Message):
        """The person pressed Esc in the map: focus goes back to the prompt."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.blocks: list[MapBlock] = []
        self.window = 0
        self.used = 0
        self.reported: int | None = None
        self.thresholds: Thresholds | None = None
        self.pct: float | None = None  # compaction.pct, as the gauge uses it
        self.origin = ""
        self.token_method = ""
        self.streaming_tokens = 0

    def show_request(self, request: AssembledRequest, *, reported: int | None = None) -> None:
        name = self.blocks[self.selected].name if self.blocks and self.selected < len(self.blocks) else None
        self.blocks = blocks_from_request(request)
        self.window = request.context_window
        self.used = request.total_tokens
        self.reported = reported
        self.thresholds = compute_thresholds(self.window, self.pct, origin=self.origin) if self.window else None
        self.token_method = request.token_method
        self.streaming_tokens = 0
        # Keep the selection on the same block across updates.
        names = [b.name for b in self.blocks]
        self.selected = names.index(name) if name in names else min(self.selected, max(0, len(self.blocks) - 1))
        self.refresh(layout=True)

    def clear(self) -> None:
        """Nothing sent and nothing to show yet (a new session)."""
        self.blocks = []
        self.used = self.streaming_tokens = 0
        self.reported = None
        self.selected = 0
        self.refresh(layout=True)

    def set_reported(self, reported: int | None) -> None:
        self.reported = reported
        self.refresh()

    def set_streaming(self, tokens: int) -> None:
        self.streaming_tokens = tokens
        self.refresh()

    def action_move(self, step: int) -> None:
        if self.blocks:
            self.selected = max(0, min(len(self.blocks) - 1, self.selected + step))

    def action_jump(self, index: int) -> None:
        if self.blocks:
            self.selected = index % len(self.blocks)

    def action_leave(self) -> None:
        self.post_message(self.Left())

    def action_open(self) -> None:
        if self.blocks:
            self.post_message(self.Opened(self.blocks[self.selected]))

    def watch_selected(self) -> None:
        self.refresh()

    def _rows_for(self, tokens: int, rows: int) -> int:
        return max(1, round(rows * tokens / self.window)) if self.window else 1

    def render(self) -> Content:
        width = max(10, self.size.width)
        if not self.blocks:
            return Content.from_markup("[$text-muted]No request yet.\nSend a message to see what the model receives.[/]")
        used = self.reported or self.used
        lines = [self._gauge(width, used)]
        rows = max(len(self.blocks), self.size.height - 4)
        heights = [self._rows_for(block.tokens, rows) for block in self.blocks]
        if sum(heights) > rows:
            heights = [1] * len(self.blocks)  # too many blocks to be proportional: one row each
        for index, (block, height) in enumerate(zip(self.blocks, heights)):
            lines.extend(self._block_lines(block, index == self.selected, width, height))
        if self.streaming_tokens:
            lines.extend(self._paint(f"reply (streaming) {format_tokens(self.streaming_tokens)}", GROUP_COLOURS["Streaming"], width, 1))
        free = max(0, self.window - used - self.streaming_tokens)
        lines.append(Content.from_markup(f"[$text-muted]free {format_tokens(free)} ({100 * free / max(1, self.window):.0f}%)[/]"))
        return Content("\n").join(lines)

    def _gauge(self, width: int, used: int) -> Content:
        bar = width - 2
        filled = min(bar, round(bar * used / self.window)) if self.window else 0
        cells = ["█"] * filled + ["·"] * (bar - filled)
        if self.thresholds:
            for mark, value in (("w", self.thresholds.warn), ("a", self.thresholds.auto), ("h", self.thresholds.hard)):
                position = min(bar - 1, int(bar * value / self.window))
                cells[position] = mark
        band = self.thresholds.band(used) if self.thresholds else "ok"
        colour = {"ok": "$success", "warn": "$warning", "auto": "$error", "hard": "$error"}[band]
        source = "reported" if self.reported else self.token_method
        head = f"{format_tokens(used)} / {format_tokens(self.window)} ({100 * used / max(1, self.window):.0f}%, {source})"
        return Content.from_markup(f"[b]{escape(head)}[/b]\n[{colour}]{''.join(cells)}[/]")

    def _block_lines(self, block: MapBlock, selected: bool, width: int, rows: int) -> list[Content]:
        status = f" {block.status}" if block.status and block.status != "OK" else ""
        label = f"{block.name}{status} · {format_tokens(block.tokens)}"
        colour = CUT_COLOUR if block.status == "TRUNCATED" else GROUP_COLOURS.get(block.group, "$panel")
        return self._paint(label, colour, width, rows, selected=selected)

    def _paint(self, label: str, colour: str, width: int, rows: int, *, selected: bool = False) -> list[Content]:
        marker = "▶ " if selected else "  "
        text = (marker + label)[:width].ljust(width)
        style = f"reverse on {colour}" if selected else f"on {colour}"
        first = Content.from_markup(f"[{style}]{escape(text)}[/]")
        rest = [Content.from_markup(f"[on {colour}]{' ' * width}[/]") for _ in range(rows - 1)]
        return [first, *rest]
