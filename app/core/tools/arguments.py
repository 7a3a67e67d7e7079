"""Reading a tool call's arguments, which come from a model and may be the wrong type.

Models sometimes send numbers and booleans as strings; those are accepted.
Anything else becomes a ToolError that names the argument, so the model can retry.
"""

from __future__ import annotations

import os
import posixpath
from typing import Any

from app.core.tools.errors import ToolError


def text_arg(args: dict[str, Any], name: str, *, required: bool = True, allow_empty: bool = True) -> str | None:
    value = args.get(name)
    if value is None:
        if required:
            raise ToolError(f"the argument {name!r} is required")
        return None
    if not isinstance(value, str):
        raise ToolError(f"the argument {name!r} must be a string, got {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise ToolError(f"the argument {name!r} must not be empty")
    return value


def required_text(args: dict[str, Any], name: str, *, allow_empty: bool = True) -> str:
    value = text_arg(args, name, required=True, allow_empty=allow_empty)
    assert value is not None  # required=True never returns None
    return value


def int_arg(args: dict[str, Any], name: str, *, minimum: int) -> int | None:
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, bool):
        raise ToolError(f"the argument {name!r} must be a whole number, got a boolean")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise ToolError(f"the argument {name!r} must be a whole number, got {value!r}") from None
    if not isinstance(value, int):
        raise ToolError(f"the argument {name!r} must be a whole number, got {value!r}")
    if value < minimum:
        raise ToolError(f"the argument {name!r} must be at least {minimum}, got {value}")
    return value


def float_arg(args: dict[str, Any], name: str) -> float | None:
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise ToolError(f"the argument {name!r} must be a number, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ToolError(f"the argument {name!r} must be a number, got {value!r}")
    return float(value)


def bool_arg(args: dict[str, Any], name: str, default: bool = False) -> bool:
    value = args.get(name)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ToolError(f"the argument {name!r} must be true or false, got {value!r}")


def path_subject(raw: Any) -> str:
    """A path argument as permission rules see it: normalized, relative when it was given relative.

    ``subject()`` has no context, so absolute paths stay absolute here; the
    permission policy makes them root-relative when it knows the root.
    """
    if not isinstance(raw, str) or not raw.strip():
        return ""
    return posixpath.normpath(os.path.expanduser(raw.strip()))


def shown_arg(args: dict[str, Any], name: str, default: str = "") -> str:
    """An argument for a one-line summary; never raises, whatever the model sent."""
    value = args.get(name, default)
    return value if isinstance(value, str) else str(value)


# Arguments that end up as a file name or a process argument, where the OS refuses a NUL byte and
# a lone surrogate (half of a UTF-16 pair, which JSON's \ud800 escapes can carry) cannot be encoded.
_OS_BOUND_ARGUMENTS = ("path", "pattern", "include", "command")


def invalid_characters(args: dict[str, Any]) -> str | None:
    """A refusal in words when a path-like argument holds characters no file name or command can hold."""
    for name in _OS_BOUND_ARGUMENTS:
        value = args.get(name)
        if not isinstance(value, str):
            continue
        if "\x00" in value:
            return f"the argument {name!r} contains a NUL byte (at character {value.index(chr(0)) + 1}), which no path or command can hold; send it again without it"
        for index, char in enumerate(value):
            if "\ud800" <= char <= "\udfff":
                return f"the argument {name!r} contains an invalid character (a lone UTF-16 surrogate, U+{ord(char):04X}, at character {index + 1}); send it again as valid text"
    return None
