"""The one exception tools raise.

It lives apart from ``base`` so the filesystem seam, which ``base`` imports,
can raise it too without a circular import.
"""

from __future__ import annotations


class ToolError(Exception):
    """A failure the model should read: the message is shown as the tool's output."""
