"""What a search passes over when ripgrep cannot run: the same rules, read with ``pathspec``.

ripgrep is the normal path (``app/core/tools/ripgrep.py``); this is used when its binary is missing or
cannot start, and for speculative runs, whose files live in an overlay ripgrep cannot see. It follows
ripgrep's defaults closely enough that a search finds the same files: ``.gitignore`` files count inside a
git repository, ``.ignore`` files count everywhere and win over ``.gitignore`` in the same directory, a
deeper file wins over a shallower one, nothing under an ignored directory comes back, and hidden names
(a leading dot) are skipped unless asked for. Not read: ``.git/info/exclude`` and the global excludes
file, and ignore files above the workspace root.
"""

from __future__ import annotations

from pathlib import Path

from typing import TYPE_CHECKING

from app.core.tools.errors import ToolError
from app.core.tools.filesystem import FileSystem

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

# Checked in this order within one directory: the first that has an opinion decides.
_IGNORE_FILES = (".ignore", ".gitignore")


class IgnoreRules:
    """Ignore decisions for files under ``root``, with each directory's rules read once."""

    def __init__(self, fs: FileSystem, root: Path, *, hidden: bool) -> None:
        self._fs = fs
        self._root = root
        self._hidden = hidden
        self._in_git = any(fs.exists(folder / ".git") for folder in (root, *root.parents))
        self._specs: dict[Path, list[GitIgnoreSpec]] = {}
        self._dirs: dict[Path, bool] = {}

    def skips(self, path: Path, top: Path) -> bool:
        """Whether the file ``path``, found by walking from ``top``, is passed over."""
        # What the caller named explicitly is searched even if hidden, as ripgrep does.
        if not self._hidden and any(part.startswith(".") for part in path.relative_to(top).parts):
            return True
        try:
            path.relative_to(self._root)
        except ValueError:
            return False
        return self._dir_ignored(path.parent) or self._ignored(path, is_dir=False)

    def _dir_ignored(self, folder: Path) -> bool:
        if folder == self._root or self._root not in folder.parents:
            return False
        known = self._dirs.get(folder)
        if known is None:
            known = self._dir_ignored(folder.parent) or self._ignored(folder, is_dir=True)
            self._dirs[folder] = known
        return known

    def _ignored(self, path: Path, *, is_dir: bool) -> bool:
        folder = path.parent
        while True:
            relative = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
            for spec in self._specs_in(folder):
                verdict = spec.check_file(relative).include
                if verdict is not None:
                    return verdict
            if folder == self._root:
                return False
            folder = folder.parent

    def _specs_in(self, folder: Path) -> list[GitIgnoreSpec]:
        specs = self._specs.get(folder)
        if specs is None:
            from pathspec import GitIgnoreSpec  # only the fallback needs it

            specs = []
            for name in _IGNORE_FILES:
                if name == ".gitignore" and not self._in_git:
                    continue
                source = folder / name
                try:
                    if not self._fs.is_file(source):
                        continue
                    lines = self._fs.read_text(source).splitlines()
                except (OSError, ToolError):  # an unreadable or non-UTF-8 ignore file ignores nothing, as in git
                    continue
                specs.append(GitIgnoreSpec.from_lines(lines))
            self._specs[folder] = specs
        return specs
