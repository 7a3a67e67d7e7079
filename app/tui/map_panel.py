"""The side panel with the context map: shown by itself on wide terminals, F2 and /map by hand.

The app's own layout, not a controller: it holds the widgets the app gives it (attributes down).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.widget import Widget

    from app.tui.widgets.context_map import ContextMap
    from app.tui.widgets.prompt import PromptInput

# The side panel opens by itself on terminals at least this wide.
AUTO_SHOW_MAP_WIDTH = 150


class MapPanel:
    def __init__(self, side: Widget, context_map: ContextMap, prompt: PromptInput, *, collapse_width: int) -> None:
        self.side = side
        self.context_map = context_map
        self.prompt = prompt
        self.collapse_width = collapse_width  # ui.map_collapse_width
        # The person's own choice of showing the map (F2, /map) wins over the width rule until the terminal
        # gets narrower than ui.map_collapse_width.
        self.chosen: bool | None = None

    def follow_width(self, width: int) -> None:
        """The map follows the terminal: shown by itself on wide ones, collapsed below ui.map_collapse_width."""
        if width < self.collapse_width:
            self.chosen = None
            if not self.context_map.has_focus:
                self.side.display = False
        elif self.chosen is None:
            self.side.display = width >= AUTO_SHOW_MAP_WIDTH

    def toggle(self) -> None:
        side = self.side
        self.chosen = not side.display
        side.display = not side.display
        if not side.display:
            self.prompt.focus()

    def focus_map(self) -> None:
        """F2: open the map and move into it; from inside it, close it and go back to the prompt."""
        if self.side.display and self.context_map.has_focus:
            self.chosen = False
            self.side.display = False
            self.prompt.focus()
            return
        self.chosen = True
        self.side.display = True
        self.context_map.focus()
