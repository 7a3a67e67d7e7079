"""While a long reply streams, its blocks far above the screen step out of the layout behind one spacer.

Every update of a streamed reply lays the whole screen out again, and Textual arranges every displayed
widget to do it: a 5,000-token reply is about 660 widgets (a bullet is four), and each update's layout
grew with the reply to 50-100 ms on a quiet machine and 0.3-0.8 s at load 5 on 2 cores; the last words
of the reply waited behind it (bench/tui.py, ``tui.stream_5000_tokens_lag``). A widget with
``display: none`` is not arranged at all. So, while the conversation is scrolled to its end, top-level
blocks whose bottom is more than two screens above the end of the reply are hidden, and one plain widget
as tall as they were stands in for them: the scroll bar and everything on screen stay as they were.
No block is removed or re-created; the blocks come back (``show_all``) when the person scrolls up or
the conversation's size changes. They stay hidden when the reply ends: bringing them all back then cost
a full layout of the reply (0.4-0.6 s at load 5) right after its last words.

Where each block is comes from the Markdown widget's own arrangement (``Widget.arrange``, cached by
Textual for the size it was last laid out at), never from a block's region or size: asking an
off-screen widget for its region makes Textual arrange the whole screen once more, and the size it
keeps is from its last time on screen (before a scroll bar appeared, say).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

# Blocks are hidden only this many screens' height above the end of the reply: the person sees none of them.
SCREENS_KEPT = 2


class HiddenBlocksSpacer(Widget):
    """Stands in, with their height, for the reply's blocks hidden above the screen.

    Its height is its content height: the reply's Markdown uses Textual's ``stream`` layout, which
    treats every child as ``height: auto`` and ignores styles set in code.
    """

    DEFAULT_CSS = """
    HiddenBlocksSpacer {
        height: auto;
        margin: 0;
        padding: 0;
    }
    """

    def __init__(self, lines: int) -> None:
        super().__init__()
        self.lines = lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.lines


class OffscreenBlocks:
    """The hidden blocks of one streamed reply's Markdown widget."""

    def __init__(self, markdown: Markdown) -> None:
        self.markdown = markdown
        self.hidden: list[Widget] = []
        self.spacer: HiddenBlocksSpacer | None = None

    def hide_far_above(self, screen_height: int) -> int:
        """Hide the blocks more than ``SCREENS_KEPT`` screens above the reply's end; returns how many were hidden now.

        The caller makes sure the conversation is scrolled to its end (where the reply's end is on screen).
        Nothing here waits (the spacer's mount completes on its own): a streamed reply's updates must not
        interleave, or its text could reach the widget out of order.
        """
        markdown = self.markdown
        size = markdown.size  # the content area: what the compositor arranges the blocks in
        if screen_height <= 0 or not size.width:
            return 0
        placements = [p for p in markdown.arrange(size).placements if p.widget.display]
        blocks = [p for p in placements if isinstance(p.widget, MarkdownBlock)]
        if len(blocks) < 2:
            return 0
        end = max(p.region.bottom for p in placements)
        keep = SCREENS_KEPT * screen_height
        cut = 0  # blocks[:cut] are hidden now
        while cut < len(blocks) - 1 and end - blocks[cut].region.bottom > keep:
            cut += 1
        if not cut:
            return 0
        for placement in blocks[:cut]:
            placement.widget.display = False
            self.hidden.append(placement.widget)
        # The spacer (no margin) ends where the first block kept starts its margin: that block then sits
        # exactly where it was, since a margin next to none collapses to itself.
        first_kept = blocks[cut]
        lines = max(0, first_kept.region.y - first_kept.margin.top)
        # A new spacer each time rather than a taller one: the stream layout keeps the placement of an
        # unchanged first child from its last pass, and a resized spacer was sometimes laid out at its
        # old height (the reply then came out shorter than it was).
        old, self.spacer = self.spacer, HiddenBlocksSpacer(lines)
        markdown.mount(self.spacer, before=0)
        if old is not None:
            old.remove()
        return cut

    def show_all(self) -> None:
        """Every block back in the layout, the spacer gone."""
        hidden, self.hidden = self.hidden, []
        spacer, self.spacer = self.spacer, None
        for block in hidden:
            block.display = True
        if spacer is not None:
            spacer.remove()

    def forget(self) -> None:
        """The Markdown widget was rendered anew (its children, spacer included, are gone)."""
        self.hidden = []
        self.spacer = None
