"""One widget per transcript entry: user prompt, streamed answer, tool call, notice."""

from __future__ import annotations

import asyncio
import re
import time
from typing import TYPE_CHECKING

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Markdown, Static

from app.inert import inert
from app.tui import gc_hold
from app.tui.widgets.offscreen import OffscreenBlocks
from app.tui.widgets.transcript import Entry

if TYPE_CHECKING:
    from textual.timer import Timer

STATUS_MARKS = {
    "waiting": ("?", "$warning"),
    "running": ("…", "$accent"),
    "ok": ("✓", "$success"),
    "error": ("✗", "$error"),
    "rejected": ("⊘", "$warning"),
    "cancelled": ("⊘", "$text-muted"),
}
# Long tool output is cut in the view (the model saw all of it, the record keeps all of it).
MAX_OUTPUT_LINES = 200
# While a reply streams, its text reaches the Markdown widget at most this often: every update lays
# the whole reply out again, and fewer of them leave the event loop time to keep up with a fast
# stream (5,000 tokens at 1,000 a second in bench/tui.py).
STREAM_UPDATE_SECONDS = 0.1
# What a streamed reply shows differs from a whole render of its text in two cases only (Textual
# 8.2): rows that stream into a table become plain cells, and a reference link defined after its
# use stays unresolved. A reply with either is rendered whole once it ends; any other is left as
# streamed, because rendering a 5,000-token reply again blocks the screen for over a second.
_TABLE_DELIMITER = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*\|[-:| \t]*$", re.MULTILINE)
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.MULTILINE)


def needs_whole_render(text: str) -> bool:
    """Whether a streamed reply must be rendered again from its whole text to look right."""
    # A CR split from its LF by a chunk boundary is drawn as a control picture while streaming.
    return "\r" in text or bool(_TABLE_DELIMITER.search(text) or _REFERENCE_DEFINITION.search(text))


class UserView(Static):
    def __init__(self, entry: Entry) -> None:
        super().__init__(Content(inert(entry.text)), classes="user-message")
        self.entry = entry


# A recap entry's text starts with this; it is shown in bold.
RECAP_LABEL = "Where you left off:"


class NoticeView(Static):
    def __init__(self, entry: Entry) -> None:
        super().__init__(_notice_content(entry), classes=f"notice {entry.kind}")
        self.entry = entry


def _notice_content(entry: Entry) -> Content:
    if entry.kind == "recap" and entry.text.startswith(RECAP_LABEL):
        return Content.assemble((RECAP_LABEL, "bold"), inert(entry.text[len(RECAP_LABEL) :]))
    return Content(inert(entry.text))


class AssistantView(Vertical):
    """A reply; while it streams, text goes through one MarkdownStream."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(classes="assistant-message")
        self.entry = entry
        self._stream = None
        self._unshown = ""  # streamed text not handed to the Markdown widget yet
        self._shown_at = 0.0
        self._show_timer: Timer | None = None
        self._offscreen: OffscreenBlocks | None = None
        self._holding_gc = False

    def compose(self) -> ComposeResult:
        yield Static(Content(self._reasoning_tail()), classes="reasoning")
        yield Markdown(inert(self.entry.text) if not self.entry.streaming else "")

    def on_mount(self) -> None:
        self._sync_reasoning()

    def on_unmount(self) -> None:
        self._release_gc()  # removed mid-stream (another session opened): the hold must not outlive it

    def _release_gc(self) -> None:
        if self._holding_gc:
            self._holding_gc = False
            gc_hold.release()

    def _reasoning_tail(self) -> str:
        lines = self.entry.reasoning.strip().splitlines()
        if not lines:
            return ""
        # While streaming show the last few lines of thinking; afterwards a one-line marker.
        if self.entry.streaming:
            return inert("\n".join(lines[-3:]))
        return f"thought for {len(self.entry.reasoning.split())} words"

    def _sync_reasoning(self) -> None:
        reasoning = self.query_one(".reasoning", Static)
        reasoning.update(Content(self._reasoning_tail()))
        reasoning.display = bool(self.entry.reasoning.strip())

    def add_reasoning(self, text: str) -> None:
        self.entry.reasoning += text
        self._sync_reasoning()

    async def write(self, text: str) -> None:
        self.entry.text += text
        self._unshown += text
        wait = self._shown_at + STREAM_UPDATE_SECONDS - time.monotonic()
        if wait <= 0:
            await self._show_streamed()
        elif self._show_timer is None:
            self._show_timer = self.set_timer(wait, self._show_streamed)

    async def _show_streamed(self) -> None:
        """Hand the text streamed since the last update to the Markdown widget."""
        if self._show_timer is not None:
            self._show_timer.stop()
            self._show_timer = None
        self._shown_at = time.monotonic()
        text, self._unshown = self._unshown, ""
        if not text:
            return
        if self._stream is None:
            markdown = self.query_one(Markdown)
            self._stream = Markdown.get_stream(markdown)
            self._offscreen = OffscreenBlocks(markdown)
            if not self._holding_gc:
                self._holding_gc = True
                gc_hold.hold()
        self._keep_layout_small()
        await self._stream.write(inert(text))

    def _keep_layout_small(self) -> None:
        """Blocks far above the screen out of the layout while the conversation follows the reply's end."""
        offscreen, conversation = self._offscreen, self.parent
        if offscreen is None or not isinstance(conversation, Widget):
            return
        if conversation.is_vertical_scroll_end:
            offscreen.hide_far_above(conversation.outer_size.height)
        else:
            offscreen.show_all()

    def show_hidden_blocks(self) -> None:
        """The person scrolls up, or the width changes: every block of the reply back in place."""
        if self._offscreen is not None:
            self._offscreen.show_all()

    async def finish(self) -> None:
        """End the stream; render the whole text again only where streaming shows it wrongly.

        The streamed text reaches the screen first: the whole render of a long reply takes
        a good part of a second, and the last words must not wait for it.
        """
        await self._show_streamed()
        self.entry.streaming = False
        streamed = self._stream is not None
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()
            await self._next_frame()
        if not streamed or needs_whole_render(self.entry.text):
            self._offscreen = None  # the whole render replaces every block, and the spacer with them
            await self.query_one(Markdown).update(inert(self.entry.text))
        # Otherwise what was hidden stays hidden until the person scrolls up (or the width changes):
        # bringing 100 blocks of a long reply back at once held the screen 0.4-0.6 s at load 5 just
        # after the reply ended, and every later layout of the conversation would pay for them again.
        self._release_gc()
        self._sync_reasoning()

    async def _next_frame(self, timeout: float = 0.5) -> None:
        """Until the streamed text is drawn (at most ``timeout`` seconds)."""
        markdown = self.query_one(Markdown)
        drawn = asyncio.Event()

        async def wait() -> None:
            # A stopped stream can leave its last append still running: wait for it first.
            async with markdown.lock:
                pass
            self.call_after_refresh(drawn.set)
            await drawn.wait()

        try:
            await asyncio.wait_for(wait(), timeout)
        except TimeoutError:
            pass

    async def reset(self) -> None:
        if self._show_timer is not None:
            self._show_timer.stop()
            self._show_timer = None
        self._unshown = ""
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()
        self._offscreen = None  # the update below removes every block, and the spacer with them
        self.entry.text = ""
        self.entry.reasoning = ""
        await self.query_one(Markdown).update("")
        self._release_gc()
        self._sync_reasoning()


class ToolView(Static):
    """A tool call: one line (status, summary) collapsed; its output when expanded."""

    ALLOW_SELECT = True

    def __init__(self, entry: Entry, *, expanded: bool = False) -> None:
        super().__init__(classes="tool-call")
        self.entry = entry
        self.expanded = expanded

    def on_mount(self) -> None:
        self.refresh_entry()

    def on_click(self) -> None:
        self.expanded = not self.expanded
        self.refresh_entry()

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded
        self.refresh_entry()

    def refresh_entry(self) -> None:
        entry = self.entry
        mark, colour = STATUS_MARKS.get(entry.status, ("·", "$text-muted"))
        arrow = "▼" if self.expanded else "▶"
        self.set_class(entry.status in ("error", "rejected"), "failed")
        title = _one_line(inert(entry.shown_title() or entry.tool_name))
        # Summaries start with the tool's name; make that part bold rather than say it twice.
        name, rest = (entry.tool_name, title[len(entry.tool_name):]) if title.startswith(entry.tool_name) else ("", title)
        header = Content.from_markup(f"[$text-muted]{arrow}[/] [{colour}]{mark}[/] [b]{escape(name)}[/b]")
        header += Content(rest if name else title)
        output = entry.shown_output() if self.expanded else ""
        if not output:
            self.update(header)
            return
        lines = inert(output).splitlines()
        shown = lines[:MAX_OUTPUT_LINES]
        body = "\n".join(shown)
        if len(lines) > MAX_OUTPUT_LINES:
            body += f"\n… {len(lines) - MAX_OUTPUT_LINES} more lines"
        self.update(header + Content("\n") + Content(body).stylize("$text-muted"))


def _one_line(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def view_for(entry: Entry, *, tools_expanded: bool = False) -> Static | Vertical:
    if entry.kind == "user":
        return UserView(entry)
    if entry.kind == "assistant":
        return AssistantView(entry)
    if entry.kind == "tool":
        return ToolView(entry, expanded=tools_expanded)
    return NoticeView(entry)
