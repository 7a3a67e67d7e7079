"""While a long reply streams, its blocks far above the screen step out of the layout behind one spacer.

Every update of a streamed reply lays the whole screen out again, and Textual arranges every displayed
widget to do it: a 5,000-token reply is about 660 widgets (a bullet is four), and each update's layout
grew with the reply to 50-100 ms on a quiet machine and 0.3-0.8 s at load 5 on 2 cores; the last words
of the reply waited behind it (bench/tui.py, ``tui.stream_5000_tokens_lag``). A widget with
``display: none`` is not arranged at all. So, while the conversation is scrolled to its end, top-level
blocks whose bottom is more than two screens above the end of the reply are hidden, and one plain widget
as tall as they were (margins collapsed as Textual's vertical layout collapses them) stands in for them:
the scroll bar and everything on screen stay as they were. Nothing is removed or re-created; the blocks
come back (``show_all``) when the reply ends, is reset, or the person scrolls up.

Heights come from each block's last layout (``outer_size``) and its margins, never from its region:
asking an off-screen widget for its region makes Textual arrange the whole screen once more.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

# Blocks are hidden only this many screens' height above the end of the reply: the person sees none of them.
SCREENS_KEPT = 2


class HiddenBlocksSpacer(Widget):
    """Stands in, with their height, for the reply's blocks hidden above the screen."""

    DEFAULT_CSS = """
    HiddenBlocksSpacer {
        height: 0;
        margin: 0;
        padding: 0;
    }
    """


@dataclass
class _Hidden:
    """One hidden block and the height it took, margins included as the layout collapsed them."""

    block: Widget
    height: int
    margin_top: int
    margin_bottom: int


class OffscreenBlocks:
    """The hidden blocks of one streamed reply's Markdown widget."""

    def __init__(self, markdown: Markdown) -> None:
        self.markdown = markdown
        self.hidden: list[_Hidden] = []
        self.spacer: HiddenBlocksSpacer | None = None

    async def hide_far_above(self, screen_height: int) -> int:
        """Hide the blocks more than ``SCREENS_KEPT`` screens above the reply's end; returns how many were hidden now.

        The caller makes sure the conversation is scrolled to its end (where the reply's end is on screen).
        """
        if screen_height <= 0:
            return 0
        blocks = [child for child in self.markdown.children if isinstance(child, MarkdownBlock) and child.display]
        if len(blocks) < 2:
            return 0
        # Distance from each block's bottom to the reply's bottom, walking up from the last block.
        keep = SCREENS_KEPT * screen_height
        below = 0
        cut = -1  # blocks[: cut + 1] are hidden
        for index in range(len(blocks) - 1, 0, -1):
            block, above = blocks[index], blocks[index - 1]
            below += block.outer_size.height + max(above.styles.margin.bottom, block.styles.margin.top)
            if below > keep:
                cut = index - 1
                break
        if cut < 0:
            return 0
        for block in blocks[: cut + 1]:
            margin = block.styles.margin
            self.hidden.append(_Hidden(block, block.outer_size.height, margin.top, margin.bottom))
            block.display = False
        height = self._spacer_height(next_margin_top=blocks[cut + 1].styles.margin.top)
        if self.spacer is None:
            self.spacer = HiddenBlocksSpacer()
            self.spacer.styles.height = height
            await self.markdown.mount(self.spacer, before=0)
        else:
            self.spacer.styles.height = height
            self.spacer.display = True
        return cut + 1

    def _spacer_height(self, *, next_margin_top: int) -> int:
        """What the hidden blocks took, from the top of the first one's margin to where the next one's margin starts."""
        hidden = self.hidden
        total = hidden[0].margin_top
        for this, after in zip(hidden, hidden[1:]):
            total += this.height + max(this.margin_bottom, after.margin_top)
        last = hidden[-1]
        total += last.height + max(last.margin_bottom, next_margin_top)
        # The spacer has no margin: the next block's own top margin follows it.
        return max(0, total - next_margin_top)

    def show_all(self) -> None:
        """Every block back in the layout; the spacer stays, hidden, for the next time."""
        hidden, self.hidden = self.hidden, []
        for item in hidden:
            item.block.display = True
        if self.spacer is not None:
            self.spacer.display = False

    def forget(self) -> None:
        """The Markdown widget was rendered anew (its children, spacer included, are gone)."""
        self.hidden = []
        self.spacer = None
