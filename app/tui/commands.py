"""Slash commands: their names, completion, and parsing of what was typed."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import field
from app.dataclass import dataclass


@dataclass(frozen=True)
class SlashCommand:
    """One /command: its name and aliases, what it does, and the App action it runs."""

    name: str
    description: str
    action: str  # the App action it runs
    aliases: tuple[str, ...] = field(default=())
    argument_hint: str = ""
    skill: str = ""  # set for a skill run as a command (/review): the skill's name

    @property
    def takes_argument(self) -> bool:
        return bool(self.argument_hint)

    def action_call(self, argument: str) -> str:
        """The action string to run, with the typed argument when the command takes one."""
        if self.skill:
            return f"{self.action}({self.skill!r}, {argument!r})"
        return f"{self.action}({argument!r})" if self.takes_argument else self.action


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("help", "Show every key and command", "help", aliases=("?",)),
    SlashCommand("new", "Start a new session (the current one stays recorded)", "new_session", aliases=("clear",)),
    SlashCommand("resume", "Pick an earlier session of this project", "sessions", aliases=("sessions",)),
    SlashCommand("rename", "Name this session (ctrl+r and 'sessions list' show it)", "rename_session", argument_hint="<title>"),
    SlashCommand("recap", "Where you left off: the session so far in a few sentences", "recap"),
    SlashCommand("rewind", "Go back to before an earlier message of yours (also Esc Esc); offers to undo file changes", "rewind"),
    SlashCommand("copy", "Copy the last answer to the clipboard", "copy_last"),
    SlashCommand("tools", "Expand or collapse tool output", "toggle_tools"),
    SlashCommand("context", "What the last request held: list, detail, map or json", "context_report", argument_hint="list|detail|map|json"),
    SlashCommand("memory", "The memory panel (show or refresh: the instruction files)", "memory_command", argument_hint="[show|refresh]"),
    SlashCommand("remember", "Ask the model to save this as a memory", "remember", argument_hint="<text>"),
    SlashCommand("forget", "Forget the saved memories this describes (asks first)", "forget", argument_hint="<text>"),
    SlashCommand("dream", "Consolidate the project memories now", "dream"),
    SlashCommand("init", "Write a QWEN.md for this repository (asks before overwriting)", "init_context_file"),
    SlashCommand("map", "Show or hide the live context map", "toggle_context_map"),
    SlashCommand("compress", "Summarize the conversation now (optional focus text)", "compact_now", aliases=("summarize", "compact"), argument_hint="[focus]"),
    SlashCommand("hooks", "Configured hooks and their last result; trust or untrust this folder's", "hooks_command", argument_hint="[trust|untrust]"),
    SlashCommand("trust", "Trust this folder or stop: whether its project settings, hooks and tool grants apply", "trust_command"),
    SlashCommand("permissions", "The approval mode and every active rule, with where it came from", "permissions_command"),
    SlashCommand("skills", "Skills by level: read, enable or disable them", "skills"),
    SlashCommand("mcp", "MCP servers: status, tools and tokens; reconnect one", "mcp_command", argument_hint="[reconnect [name]]"),
    SlashCommand("compress-fast", "Clear old tool results now, no model call", "compress_fast"),
    SlashCommand("approval-mode", "Show or set the approval mode: default, auto-edit, plan, yolo (shift+tab cycles)", "approval_mode", aliases=("mode",), argument_hint="[mode]"),
    SlashCommand("model", "Pick the model from the endpoint's list, or switch to one by name", "switch_model", argument_hint="[name]"),
    SlashCommand("quit", "Quit", "quit", aliases=("exit",)),
)

_COMMAND_WORD = re.compile(r"^/([A-Za-z?][\w.:-]*)(?:\s+(.*))?$", re.S)
# What a skill's name must look like to be typed as a command.
_SKILL_COMMAND_NAME = re.compile(r"^[a-z0-9][a-z0-9_.:-]*$")


def _names(command: SlashCommand) -> tuple[str, ...]:
    return (command.name, *command.aliases)


def skill_commands(skills: Iterable[tuple[str, str]]) -> list[SlashCommand]:
    """A command for each (name, description) of the skills a person may run; built-in names win."""
    taken = {name for command in COMMANDS for name in _names(command)}
    commands: list[SlashCommand] = []
    for name, description in skills:
        word = name.lower()
        if word in taken or not _SKILL_COMMAND_NAME.match(word):
            continue
        taken.add(word)
        summary = " ".join(description.split())
        commands.append(SlashCommand(word, f"skill · {summary}" if summary else "skill", "run_skill", argument_hint="[args]", skill=name))
    return commands


def _all(extra: Sequence[SlashCommand]) -> tuple[SlashCommand, ...]:
    return (*COMMANDS, *extra)


def matching_commands(text: str, extra: Sequence[SlashCommand] = ()) -> list[SlashCommand]:
    """Commands (and skills, in ``extra``) whose name or alias starts with the typed word (``/`` alone lists all)."""
    if not text.startswith("/") or " " in text:
        return []
    word = text[1:].lower()
    return [c for c in _all(extra) if any(n.startswith(word) for n in _names(c))]


def complete_command(text: str, extra: Sequence[SlashCommand] = ()) -> str | None:
    """The text with the command word completed, or None when nothing fits."""
    matches = matching_commands(text, extra)
    if not matches:
        return None
    if len(matches) == 1:
        return f"/{matches[0].name} "
    # Several fit: complete as far as they agree.
    names = [m.name for m in matches]
    prefix = names[0]
    for name in names[1:]:
        while not name.startswith(prefix):
            prefix = prefix[:-1]
    return f"/{prefix}" if len(prefix) + 1 > len(text) else None


@dataclass
class ParsedCommand:
    """A typed line read as /command and argument; ``command`` is None for a word that names none."""

    command: SlashCommand | None  # None: looks like a command but is unknown
    word: str
    argument: str


def parse_command(text: str, extra: Sequence[SlashCommand] = ()) -> ParsedCommand | None:
    """A slash command in the prompt, or None when the text is an ordinary prompt.

    "/etc/hosts is broken" is a prompt, not an unknown command: only a single word
    after the slash counts as a command name.
    """
    match = _COMMAND_WORD.match(text.strip())
    if not match:
        return None
    word = match.group(1).lower()
    argument = (match.group(2) or "").strip()
    for command in _all(extra):
        if word in _names(command):
            return ParsedCommand(command, word, argument)
    return ParsedCommand(None, word, argument)
