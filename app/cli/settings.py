"""Settings for the subcommands (context, hooks, memory, skills): loaded, or one clear line on stderr."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.config import Settings
    from app.paths import Paths


def settings_for_cli(paths: Paths) -> Settings | None:
    """None (after saying why) when a settings file cannot be used; the caller exits with the usage code."""
    from app.config import SettingsError, load_settings

    try:
        return load_settings(paths)
    except SettingsError as error:
        print(f"agentctx-tui: settings error: {error}", file=sys.stderr)
        return None
