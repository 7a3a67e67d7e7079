"""The scrolling conversation: a bounded window of widgets over the transcript."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from app.tui.widgets.message_views import AssistantView, ToolView, view_for
from app.tui.widgets.transcript import Entry, Transcript

LOAD_STEP = 20


class EarlierMarker(Static):
    """Says how many older entries are not mounted, and how to see them."""


class Conversation(VerticalScroll):
    can_focus = False

    def __init__(self, *, max_mounted: int = 40, id: str | None = None) -> None:
        super().__init__(id=id)
        self.transcript = Transcript()
        self.max_mounted = max(4, max_mounted)
        self.tools_expanded = False
        self._first_mounted = 0  # index of the oldest entry that has a widget
        self._extra = 0  # entries loaded on request beyond max_mounted
        self._views: dict[int, Widget] = {}
        self._marker = EarlierMarker("", id="earlier")

    def on_mount(self) -> None:
        self.mount(self._marker)
        self._marker.display = False
        self.anchor()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # The person scrolls up: replies show what they hid far above. Not when the content got shorter
        # and the position was only held at the new end (a spacer swapped for the next one, say).
        if new_value < old_value - 0.5 and new_value < self.max_scroll_y - 0.5:
            self._show_hidden_blocks()

    def on_resize(self) -> None:
        # Another width wraps the text anew: the spacers' heights no longer hold (app/tui/widgets/offscreen.py).
        self._show_hidden_blocks()

    def _show_hidden_blocks(self) -> None:
        for view in self._views.values():
            if isinstance(view, AssistantView):
                view.show_hidden_blocks()

    # -- adding and updating ---------------------------------------------------------------

    async def add(self, entry: Entry) -> Widget:
        index = self.transcript.add(entry)
        view = view_for(entry, tools_expanded=self.tools_expanded)
        self._views[index] = view
        await self.mount(view)
        await self._prune()
        return view

    async def replace_all(self, entries: list[Entry]) -> None:
        """Show a different transcript (a resumed or new session)."""
        await self.remove_children([w for w in self._views.values() if w.parent is self])
        self._views.clear()
        self.transcript = Transcript(entries=list(entries))
        self._extra = 0
        self._first_mounted = max(0, len(entries) - self.max_mounted)
        views = [view_for(e, tools_expanded=self.tools_expanded) for e in entries[self._first_mounted :]]
        for offset, view in enumerate(views):
            self._views[self._first_mounted + offset] = view
        if views:
            await self.mount_all(views)
        self._update_marker()
        self.scroll_end(animate=False, immediate=True)
        self.anchor()

    def view_of(self, entry: Entry) -> Widget | None:
        for index in range(len(self.transcript.entries) - 1, self._first_mounted - 1, -1):
            if self.transcript.entries[index] is entry:
                return self._views.get(index)
        return None

    def refresh_tool(self, entry: Entry) -> None:
        view = self.view_of(entry)
        if isinstance(view, ToolView):
            view.refresh_entry()

    def set_tools_expanded(self, expanded: bool) -> None:
        self.tools_expanded = expanded
        for view in self._views.values():
            if isinstance(view, ToolView):
                view.set_expanded(expanded)

    # -- the bounded window --------------------------------------------------------------

    async def _prune(self) -> None:
        limit = self.max_mounted + self._extra
        stale: list[Widget] = []
        while len(self._views) > limit:
            view = self._views.get(self._first_mounted)
            if isinstance(view, AssistantView) and view.entry.streaming:
                break
            self._views.pop(self._first_mounted, None)
            if view is not None:
                stale.append(view)
            self._first_mounted += 1
        if stale:
            await self.remove_children(stale)
        if self._extra and self.is_vertical_scroll_end:
            self._extra = 0  # back at the bottom: the window shrinks again on the next prune
        self._update_marker()

    async def load_earlier(self, count: int = LOAD_STEP) -> int:
        """Mount up to ``count`` older entries above the window; returns how many."""
        start = max(0, self._first_mounted - count)
        added = self._first_mounted - start
        if not added:
            return 0
        self.release_anchor()
        views = [view_for(e, tools_expanded=self.tools_expanded) for e in self.transcript.entries[start : self._first_mounted]]
        for offset, view in enumerate(views):
            self._views[start + offset] = view
        await self.mount_all(views, after=self._marker)
        self._first_mounted = start
        self._extra += added
        self._update_marker()
        self.scroll_home(animate=False)
        return added

    async def page(self, direction: int) -> None:
        """pageup / pagedown; pageup already at the top shows the older messages."""
        if direction < 0 and self.scroll_y == 0 and self._first_mounted > 0:
            await self.load_earlier()
        elif direction < 0:
            self.scroll_page_up(animate=False)
        else:
            self.scroll_page_down(animate=False)

    def _update_marker(self) -> None:
        hidden = self._first_mounted
        self._marker.display = hidden > 0
        if hidden:
            noun = "message" if hidden == 1 else "messages"
            self._marker.update(Content.from_markup(f"[$text-muted]↑ {hidden} earlier {noun} — pageup at the top shows more[/]"))

    @property
    def mounted_count(self) -> int:
        return len(self._views)
