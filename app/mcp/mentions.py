"""MCP prompts as slash commands (``/mcp__<server>__<prompt> ARGS``) and resources as ``@server:uri`` mentions.

Both turn what the person typed into the request that is sent: a prompt command
becomes the prompt's text; a mention of a connected server's resource appends the
resource, fenced as data from that server. Anything else is left as typed (an
``@file:12`` that names no server is not a mention).
"""

from __future__ import annotations

import re
import shlex
from typing import Protocol

from app.core.tools.text import clip_middle
from app.mcp.connection import CONNECTED, NotConnected, RemotePrompt, ServerConnection
from app.mcp.names import sanitize


class McpManager(Protocol):
    """What mentions need of app.mcp.manager.McpManager: its connections by server name (the manager imports this module)."""

    connections: dict[str, ServerConnection]


_PROMPT_COMMAND = re.compile(r"^/(mcp__[A-Za-z0-9_-]+)(?:\s+(.*))?$", re.S)
_MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_.-]+):(\S+)")
RESOURCE_CHARS = 30_000


class MentionError(ValueError):
    """What the person typed cannot be used; the message says why and how to write it."""


def prompt_commands(manager: McpManager) -> dict[str, tuple[ServerConnection, RemotePrompt]]:
    """Every connected server's prompts by their command name."""
    commands: dict[str, tuple[ServerConnection, RemotePrompt]] = {}
    for connection in manager.connections.values():
        if connection.status != CONNECTED:
            continue
        for prompt in connection.prompts:
            commands.setdefault(f"mcp__{sanitize(connection.name)}__{sanitize(prompt.name)}", (connection, prompt))
    return commands


def is_prompt_command(manager: McpManager | None, text: str) -> bool:
    match = _PROMPT_COMMAND.match(text.strip())
    return bool(manager is not None and match and match.group(1) in prompt_commands(manager))


def usage(command: str, prompt: RemotePrompt) -> str:
    args = " ".join(name.upper() if required else f"[{name.upper()}]" for name, required in prompt.arguments)
    return f"/{command} {args}".rstrip()


def prompt_arguments(command: str, prompt: RemotePrompt, text: str) -> dict[str, str]:
    """``name=value`` words by name, other words by position; the last argument takes what is left."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise MentionError(f"{exc}; usage: {usage(command, prompt)}") from None
    names = [name for name, _ in prompt.arguments]
    values: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, sep, value = word.partition("=")
        if sep and key in names:
            values[key] = value
        else:
            positional.append(word)
    free = [name for name in names if name not in values]
    for index, name in enumerate(free):
        if index >= len(positional):
            break
        values[name] = " ".join(positional[index:]) if index == len(free) - 1 else positional[index]
    if len(positional) > len(free) and not free:
        raise MentionError(f"too many arguments; usage: {usage(command, prompt)}")
    missing = [name for name, required in prompt.arguments if required and name not in values]
    if missing:
        raise MentionError(f"missing {', '.join(missing)}; usage: {usage(command, prompt)}")
    return values


async def expand_prompt_command(manager: McpManager, text: str) -> str:
    """The request a ``/mcp__server__prompt`` command stands for; MentionError or NotConnected otherwise."""
    match = _PROMPT_COMMAND.match(text.strip())
    commands = prompt_commands(manager)
    if not match or match.group(1) not in commands:
        raise MentionError(f"no MCP prompt named /{match.group(1) if match else text.strip()}")
    connection, prompt = commands[match.group(1)]
    arguments = prompt_arguments(match.group(1), prompt, match.group(2) or "")
    return await connection.get_prompt(prompt.name, arguments)


async def attach_resources(manager: McpManager, text: str) -> tuple[str, list[str]]:
    """The text with every mentioned resource appended, and one problem line per mention that failed."""
    servers = {sanitize(c.name): c for c in manager.connections.values()} | {c.name: c for c in manager.connections.values()}
    blocks: list[str] = []
    problems: list[str] = []
    seen: set[tuple[str, str]] = set()
    for match in _MENTION.finditer(text):
        connection = servers.get(match.group(1))
        uri = match.group(2).rstrip(".,;:!?)")
        if connection is None or (connection.name, uri) in seen:
            continue
        seen.add((connection.name, uri))
        try:
            content = await connection.read_resource(uri)
        except NotConnected as exc:
            problems.append(str(exc).splitlines()[0])
            continue
        # A resource cannot close its own fence and pose as the person's words.
        body = clip_middle(content, RESOURCE_CHARS).replace("</mcp-resource", "<\\/mcp-resource")
        blocks.append(f'<mcp-resource server="{connection.name}" uri="{uri}">\n{body}\n</mcp-resource>')
    if not blocks:
        return text, problems
    return text + "\n\n" + "\n\n".join(blocks), problems


async def expand_mcp(manager: McpManager, text: str) -> tuple[str, list[str]]:
    """What a typed request stands for: a prompt command's text, then its resource mentions attached."""
    if is_prompt_command(manager, text):
        text = await expand_prompt_command(manager, text)
    return await attach_resources(manager, text)
