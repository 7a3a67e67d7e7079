"""The error for a settings file that cannot be read at all (its own module: app.config and app.qwen_settings both raise it)."""


class SettingsError(Exception):
    """A settings file that cannot be read at all."""
