"""What a tool is: a name, a JSON schema, a kind that drives permissions, and ``run``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import field
from app.dataclass import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from app.core.images import ImagePart
from app.core.tools.errors import ToolError  # also re-exported: tools import it from here
from app.core.tools.filesystem import FileSystem, RealFileSystem
from app.core.undecodable import escape, unescape_path


class ToolKind(str, Enum):
    READ = "read"  # never changes anything; allowed in plan mode
    EDIT = "edit"  # changes files in the workspace
    EXECUTE = "execute"  # runs a program
    EXTERNAL = "external"  # runs elsewhere (an MCP server's tool): asks unless allowed, never in plan mode


@dataclass
class ToolResult:
    """What a tool call returns: the output the model reads, and what the transcript and a rewind need."""

    output: str
    is_error: bool = False
    summary: str = ""  # one line for the collapsed tool-call row, e.g. "120 lines" or "exit 0"
    images: tuple[ImagePart, ...] = ()  # sent to the model beside the output
    # edit/write_file: what the file was before and what was written (app.core.tools.file_snapshot), for rewind.
    file_change: Any = None


@dataclass
class ToolContext:
    """What a tool may touch. ``fs`` is swapped for an overlay by speculative agents."""

    root: Path
    fs: FileSystem = field(default_factory=RealFileSystem)
    shell_timeout: float = 120.0
    output_limit: int = 30_000
    read_only_shell: bool = False
    # How a command that runs without the user's approval is contained: auto | required | off (sandbox.py).
    sandbox: str = "auto"
    # Directories outside the workspace that tools may also use (the memory roots).
    extra_roots: tuple[Path, ...] = ()
    # Whether the model takes images: read_file sends an image file as one, or describes it.
    images: bool = False

    def resolve(self, raw: str) -> Path:
        """An absolute path inside the workspace root; raises ToolError otherwise."""
        if not isinstance(raw, str) or not raw.strip():
            raise ToolError("a path is required")
        if "\x00" in raw:  # the OS would refuse it with a ValueError, not an OSError
            raise ToolError("a path cannot contain a NUL byte")
        resolved = self._absolute(raw)
        if unescape_path(raw) != raw:
            resolved = self._escaped_name(resolved, self._absolute(unescape_path(raw)))
        real = self.fs.realpath(resolved)
        for allowed in (self.root, *self.extra_roots):
            root = self.fs.realpath(allowed)
            if real == root or root in real.parents:
                return resolved
        raise ToolError(f"{raw} is outside the workspace ({self.root}); only files inside it can be used")

    def _absolute(self, raw: str) -> Path:
        candidate = Path(raw).expanduser()
        if not candidate.is_absolute():
            candidate = self.root / candidate
        return Path(_normalize(candidate))

    def _escaped_name(self, literal: Path, unescaped: Path) -> Path:
        """Which file a path with ``\\xNN`` in it names: as written when that exists, else the
        name ``display`` showed that way (its undecodable bytes restored)."""
        if self.fs.exists(literal):
            return literal
        if self.fs.exists(unescaped) or (self.fs.exists(unescaped.parent) and not self.fs.exists(literal.parent)):
            return unescaped
        return literal

    def contains(self, path: Path) -> bool:
        """Whether ``path``, with symlinks followed, is inside the workspace root."""
        real = self.fs.realpath(path)
        root = self.fs.realpath(self.root)
        return real == root or root in real.parents

    def display(self, path: Path) -> str:
        """A path as the person thinks of it: relative to the root when inside it."""
        # Undecodable bytes of a file name are shown as \xNN (app/core/undecodable.py); resolve reads them back.
        try:
            return escape(str(path.relative_to(self.root))) or "."
        except ValueError:
            return escape(str(path))


def _normalize(path: Path) -> str:
    import os.path

    return os.path.normpath(str(path))


class Tool(ABC):
    """A built-in tool. Subclasses set the class attributes and implement ``run``."""

    name: str = ""
    description: str = ""
    kind: ToolKind = ToolKind.READ
    parameters: dict[str, Any] = {}
    # A deferred tool can be called but its schema is not sent (tool_search loads it).
    deferred: bool = False

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool declaration."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def summarize(self, args: dict[str, Any]) -> str:
        """One line naming what this call will do, shown before and while it runs."""
        return self.name

    def subject(self, args: dict[str, Any]) -> str:
        """What permission rules match against: a path for file tools, the command for the shell."""
        return ""

    def detail(self, args: dict[str, Any], ctx: ToolContext) -> str:
        """What the approval modal shows: a diff for edits, the command for the shell."""
        return self.summarize(args)

    @abstractmethod
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Do the work; raise ToolError for a failure the model should read."""
