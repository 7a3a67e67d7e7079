"""The settings a subcommand runs with: loaded, or one clear line on stderr and the usage exit code."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.exit_codes import EXIT_USAGE, CommandExit

if TYPE_CHECKING:
    from app.config import Settings
    from app.paths import Paths


def settings_for(paths: Paths, flags: dict[str, Any] | None = None) -> Settings:
    """Raises :class:`CommandExit` (after naming the file and the problem) when a settings file cannot be used."""
    from app.config import SettingsError, load_settings

    try:
        return load_settings(paths, flags)
    except SettingsError as error:
        print(f"agentctx-tui: settings error: {error}", file=sys.stderr)
        raise CommandExit(EXIT_USAGE) from error


def project_settings(cwd: Path | None) -> tuple[Paths, Settings]:
    """The project found from ``cwd`` (default: the current directory) and its settings."""
    from app.paths import Paths

    paths = Paths.for_cwd(cwd)
    return paths, settings_for(paths)
