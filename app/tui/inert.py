"""The TUI's name for ``app.inert`` (kept so imports from ``app.tui.inert`` still work)."""

from app.inert import inert

__all__ = ["inert"]
