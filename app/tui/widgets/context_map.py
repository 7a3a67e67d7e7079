"""The live context map: the last request drawn as stacked blocks, each as tall as its share of the window.

Up/down (or k/j) move between blocks; Enter shows a block's exact text. Right (l) opens a pool of
messages into its parts and left (h) closes it; on a part, d drops it (D: the whole turn a message you
typed starts), r restores it, p pins or unpins it and e rewrites a summary (app/tui/controllers/view_edits.py does the edits).
"""

from __future__ import annotations

from dataclasses import field
from app.dataclass import dataclass

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
EDIT_MARKS = {"dropped": "✕", "pinned": "◆", "edited": "✎"}
DROPPED_COLOUR = "$foreground 15%"


@dataclass
class MapRow:
    """One line of the map's list: a block, or (in an opened pool) one of its parts."""

    block: MapBlock
    part: RequestPart | None = None


@dataclass
class MapBlock:
    """One block of the map: request parts drawn together, as tall as their tokens."""

    group: str
    name: str
    tokens: int
    parts: list[RequestPart] = field(default_factory=list)
    status: str = ""
    key: str = ""  # a pool's kind (messages pooled by kind): what stays open across updates

    @property
    def editable(self) -> list[RequestPart]:
        return [p for p in self.parts if p.part_id]

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
                pool = pools[key] = MapBlock(group=part.group, name=label, tokens=0, key=key)
                blocks.append(pool)
            pool.parts.append(part)
            pool.tokens += part.tokens
            continue
        folded = pending + [part]
        pending = []
        blocks.append(MapBlock(group=part.group, name=part.name, tokens=sum(p.tokens for p in folded), parts=folded, status=part.status))
    for key, pool in pools.items():
        marks = [f"{n} {state}" for state in ("dropped", "pinned", "edited") if (n := sum(p.edit == state for p in pool.parts))]
        pool.name = f"{pool.name} ({len(pool.parts)}{', ' + ', '.join(marks) if marks else ''})"
    if pending and blocks:
        blocks[-1].parts.extend(pending)
        blocks[-1].tokens += sum(p.tokens for p in pending)
    return blocks


def _part_label(part: RequestPart) -> str:
    """A part as a row names it: its id (what the CLI takes) and what it is."""
    return f"{part.part_id} {part.name}" if part.part_id else part.name


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
        Binding("right,l", "expand(True)", "Open the pool into its parts", show=False),
        Binding("left,h", "expand(False)", "Close the pool", show=False),
        Binding("d", "edit('drop')", "Drop the part from the view", show=False),
        Binding("D", "edit('drop_turn')", "Drop the whole turn from the view", show=False),
        Binding("r", "edit('restore')", "Restore the part", show=False),
        Binding("p", "edit('pin')", "Pin or unpin the part", show=False),
        Binding("e", "edit('replace')", "Edit the summary in $EDITOR", show=False),
    ]

    selected: reactive[int] = reactive(0)

    @dataclass
    class Opened(Message):
        """Enter on a row: the app shows the block's (or the part's) exact text."""

        block: MapBlock

    class Left(Message):
        """The person pressed Esc in the map: focus goes back to the prompt."""

    @dataclass
    class EditAsked(Message):
        """d / r / p / e on a row: ``part`` is the message part it names (None: the row is not one)."""

        action: str
        part: RequestPart | None
        block: MapBlock

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
        self.expanded: set[str] = set()  # the keys of the pools opened into their parts
        self.rows: list[MapRow] = []
        # The prompt-cache prefix the endpoint reported for this request (app.context.prompt_cache).
        self.cached_tokens = 0
        self._cached: set[int] = set()
        self._parts: list[RequestPart] = []

    def _build_rows(self) -> None:
        rows: list[MapRow] = []
        for block in self.blocks:
            rows.append(MapRow(block))
            if block.key in self.expanded:
                rows.extend(MapRow(block, part) for part in block.parts)
        self.rows = rows

    @property
    def selected_row(self) -> MapRow | None:
        return self.rows[self.selected] if self.rows and self.selected < len(self.rows) else None

    def _row_key(self, row: MapRow | None) -> tuple[str, str] | None:
        if row is None:
            return None
        return (row.block.key or row.block.name, row.part.part_id if row.part else "")

    def set_cached(self, cached_tokens: int) -> None:
        from app.context.prompt_cache import cached_part_ids

        self.cached_tokens = max(0, cached_tokens)
        self._cached = cached_part_ids(self._parts, self.cached_tokens, self.reported)
        self.refresh()

    def cache_mark(self, block: MapBlock) -> str:
        """" · cached" when the whole block was in the cached prefix, " · 2/5 cached" for part of a pool."""
        inside = sum(1 for part in block.parts if id(part) in self._cached)
        if not inside:
            return ""
        return " · cached" if inside == len(block.parts) else f" · {inside}/{len(block.parts)} cached"

    def show_request(self, request: AssembledRequest, *, reported: int | None = None) -> None:
        kept = self._row_key(self.selected_row)
        self.blocks = blocks_from_request(request)
        self._build_rows()
        self.window = request.context_window
        self.used = request.total_tokens
        self.reported = reported
        self.thresholds = compute_thresholds(self.window, self.pct, origin=self.origin) if self.window else None
        self.token_method = request.token_method
        self.streaming_tokens = 0
        self._parts, self._cached, self.cached_tokens = list(request.parts), set(), 0  # until this request's usage says
        # Keep the selection on the same block (or part) across updates.
        keys = [self._row_key(row) for row in self.rows]
        self.selected = keys.index(kept) if kept in keys else min(self.selected, max(0, len(self.rows) - 1))
        self.refresh(layout=True)

    def clear(self) -> None:
        """Nothing sent and nothing to show yet (a new session)."""
        self.blocks = []
        self.rows = []
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
        if self.rows:
            self.selected = max(0, min(len(self.rows) - 1, self.selected + step))

    def action_jump(self, index: int) -> None:
        if self.rows:
            self.selected = index % len(self.rows)

    def action_expand(self, open_it: bool) -> None:
        row = self.selected_row
        if row is None or not row.block.key:
            return
        if open_it:
            self.expanded.add(row.block.key)
        else:
            self.expanded.discard(row.block.key)
        self._build_rows()
        heads = [i for i, r in enumerate(self.rows) if r.block is row.block]
        if heads and (not open_it or row.part is not None):
            self.selected = heads[0]  # closing from a part lands on its pool
        elif heads and open_it and len(heads) > 1:
            self.selected = heads[1]  # opening moves onto the first part
        self.refresh(layout=True)

    def action_edit(self, action: str) -> None:
        row = self.selected_row
        if row is None:
            return
        part = row.part
        if part is None and len(row.block.editable) == 1:
            part = row.block.editable[0]  # a pool of one (the summary) is its part
        self.post_message(self.EditAsked(action, part if part is not None and part.part_id else None, row.block))

    def action_leave(self) -> None:
        self.post_message(self.Left())

    def action_open(self) -> None:
        row = self.selected_row
        if row is None:
            return
        if row.part is None:
            self.post_message(self.Opened(row.block))
        else:
            part = row.part
            self.post_message(self.Opened(MapBlock(group=part.group, name=_part_label(part), tokens=part.tokens, parts=[part])))

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
        rows = max(len(self.rows), self.size.height - 4)
        heights = [1 if row.part is None and row.block.key in self.expanded else self._rows_for((row.part or row.block).tokens, rows) for row in self.rows]
        if sum(heights) > rows:
            heights = [1] * len(self.rows)  # too many blocks to be proportional: one row each
        for index, (row, height) in enumerate(zip(self.rows, heights)):
            if row.part is None:
                lines.extend(self._block_lines(row.block, index == self.selected, width, height))
            else:
                lines.extend(self._part_lines(row.part, index == self.selected, width, height))
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
        cached = f", {format_tokens(self.cached_tokens)} cached" if self.cached_tokens else ""
        head = f"{format_tokens(used)} / {format_tokens(self.window)} ({100 * used / max(1, self.window):.0f}%, {source}{cached})"
        return Content.from_markup(f"[b]{escape(head)}[/b]\n[{colour}]{''.join(cells)}[/]")

    def _block_lines(self, block: MapBlock, selected: bool, width: int, rows: int) -> list[Content]:
        status = f" {block.status}" if block.status and block.status != "OK" else ""
        label = f"{block.name}{status} · {format_tokens(block.tokens)}{self.cache_mark(block)}"
        colour = CUT_COLOUR if block.status == "TRUNCATED" else GROUP_COLOURS.get(block.group, "$panel")
        return self._paint(label, colour, width, rows, selected=selected)

    def _part_lines(self, part: RequestPart, selected: bool, width: int, rows: int) -> list[Content]:
        # The mark and the id first: the panel is narrow, and the id is what the CLI takes.
        mark = EDIT_MARKS[part.edit] + " " if part.edit else ""
        label = f" └ {mark}{part.part_id or part.name} · {format_tokens(part.tokens)} {part.name if part.part_id else ''}".rstrip()
        colour = DROPPED_COLOUR if part.edit == "dropped" else GROUP_COLOURS.get(part.group, "$panel")
        return self._paint(label, colour, width, rows, selected=selected)

    def _paint(self, label: str, colour: str, width: int, rows: int, *, selected: bool = False) -> list[Content]:
        marker = "▶ " if selected else "  "
        text = (marker + label)[:width].ljust(width)
        style = f"reverse on {colour}" if selected else f"on {colour}"
        first = Content.from_markup(f"[{style}]{escape(text)}[/]")
        rest = [Content.from_markup(f"[on {colour}]{' ' * width}[/]") for _ in range(rows - 1)]
        return [first, *rest]
