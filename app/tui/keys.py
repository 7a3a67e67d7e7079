"""Every key the app answers to, in one table.

Each key has an id, so a user keymap in settings (``keymap: {cancel: ctrl+g}``)
can remap it; the help screen is generated from this table, so it cannot drift.
"""

from __future__ import annotations

from app.dataclass import dataclass

from textual.binding import Binding, BindingsMap


@dataclass(frozen=True)
class KeySpec:
    """One key of the table; ``id`` is what a user keymap names to remap it."""

    id: str
    key: str
    action: str
    description: str
    where: str  # which part of the app the key works in (shown as a help-screen group)
    show: bool = True
    priority: bool = False

    def binding(self) -> Binding:
        return Binding(self.key, self.action, self.description, show=self.show, priority=self.priority, id=self.id)


# The prompt (a TextArea) has focus almost always and binds ctrl+y, pageup and pagedown
# itself (ctrl+u it keeps: readline's "delete to the start of the line"); "Anywhere" keys it would swallow are priority bindings.
GLOBAL_KEYS: tuple[KeySpec, ...] = (
    KeySpec("quit", "ctrl+c", "quit_pressed", "Quit (twice)", "Anywhere", priority=True),
    KeySpec("cancel", "escape", "cancel_turn", "Cancel turn", "Anywhere"),
    # While both keep Esc, "cancel" runs and hands an Esc with nothing to cancel on to the rewind
    # (AgentctxApp.action_cancel_turn), so the footer still shows "esc Cancel turn".
    KeySpec("rewind", "escape", "rewind_escape", "Rewind to an earlier message (twice, with no turn running; also /rewind)", "Anywhere", show=False),
    KeySpec("help", "f1", "help", "Help", "Anywhere"),
    KeySpec("toggle_tools", "ctrl+o", "toggle_tools", "Tool output", "Anywhere"),
    KeySpec("sessions", "ctrl+r", "sessions", "Sessions", "Anywhere"),
    KeySpec("context_map", "f2", "focus_context_map", "Context map", "Anywhere"),
    KeySpec("compact_now", "f3", "compact_now", "Compact now", "Anywhere", show=False),
    KeySpec("skills", "f4", "skills", "Skills", "Anywhere", show=False),
    KeySpec("memory_panel", "f5", "memory_panel", "Memory panel", "Anywhere", show=False),
    KeySpec("new_session", "ctrl+n", "new_session", "New session", "Anywhere", show=False),
    # Priority: the prompt would otherwise take shift+tab as "focus previous".
    KeySpec("cycle_mode", "shift+tab", "cycle_approval_mode", "Cycle the approval mode (default, auto-edit, plan, yolo)", "Anywhere", show=False, priority=True),
    # After a failed turn ctrl+y retries it (as in Qwen Code); otherwise it copies the last answer.
    KeySpec("retry", "ctrl+y", "retry_turn", "Retry the failed turn", "Anywhere", show=False, priority=True),
    KeySpec("copy_last", "ctrl+y", "copy_last", "Copy answer", "Anywhere", show=False, priority=True),
    # pageup at the top of the conversation does the same (app.action_scroll_conversation).
    KeySpec("load_earlier", "ctrl+home", "load_earlier", "Show earlier messages (also pageup at the top)", "Anywhere", show=False, priority=True),
    KeySpec("scroll_up", "pageup", "scroll_conversation(-1)", "Scroll conversation up", "Anywhere", show=False, priority=True),
    KeySpec("scroll_down", "pagedown", "scroll_conversation(1)", "Scroll conversation down", "Anywhere", show=False, priority=True),
    KeySpec("scroll_end", "ctrl+end", "scroll_conversation_end", "Jump to the newest message", "Anywhere", show=False),
)

PROMPT_KEYS: tuple[KeySpec, ...] = (
    KeySpec("submit", "enter", "submit", "Send", "Prompt", show=False),
    KeySpec("newline", "ctrl+j", "newline", "New line (also shift+enter / alt+enter where the terminal tells them apart)", "Prompt", show=False),
    KeySpec("complete", "tab", "complete", "Complete a /command", "Prompt", show=False),
    KeySpec("history_prev", "up", "history_prev", "Previous prompt (on the first line)", "Prompt", show=False),
    KeySpec("history_next", "down", "history_next", "Next prompt (on the last line)", "Prompt", show=False),
)

MAP_KEYS: tuple[KeySpec, ...] = (
    KeySpec("map_up", "up", "move(-1)", "Previous block (also k)", "Context map"),
    KeySpec("map_down", "down", "move(1)", "Next block (also j)", "Context map"),
    KeySpec("map_open", "enter", "open", "Show the block's exact text", "Context map"),
    KeySpec("map_leave", "escape", "leave", "Back to the prompt", "Context map"),
    KeySpec("map_expand", "right", "expand(True)", "Open a pool of messages into its parts (also l)", "Context map"),
    KeySpec("map_collapse", "left", "expand(False)", "Close the pool (also h)", "Context map"),
    KeySpec("map_drop", "d", "edit('drop')", "Drop the part from the view (the record keeps it)", "Context map"),
    KeySpec("map_drop_turn", "D", "edit('drop_turn')", "Drop the whole turn a message you typed starts", "Context map"),
    KeySpec("map_restore", "r", "edit('restore')", "Restore a dropped or rewritten part", "Context map"),
    KeySpec("map_pin", "p", "edit('pin')", "Pin the part through compaction (again: unpin)", "Context map"),
    KeySpec("map_edit", "e", "edit('replace')", "Rewrite the compaction summary in $VISUAL / $EDITOR", "Context map"),
)

APPROVAL_KEYS: tuple[KeySpec, ...] = (
    KeySpec("approve", "y", "approve", "Yes, run it", "Approval"),
    KeySpec("reject", "n", "reject", "No", "Approval"),
    KeySpec("always", "a", "always", "Always, for this session", "Approval"),
    KeySpec("approval_cancel", "escape", "reject", "Reject", "Approval"),
)

PICKER_KEYS: tuple[KeySpec, ...] = (
    KeySpec("picker_open", "enter", "open", "Open the selected session", "Session picker"),
    KeySpec("picker_search", "/", "search", "Search titles, first prompts and what was said", "Session picker"),
    KeySpec("picker_delete", "d", "delete", "Delete the selected session (asks first)", "Session picker"),
    KeySpec("picker_down", "down", "move(1)", "Next session (also from the search box)", "Session picker", show=False),
    KeySpec("picker_up", "up", "move(-1)", "Previous session", "Session picker", show=False),
    KeySpec("picker_close", "escape", "escape", "Clear the search, else close", "Session picker"),
)

MEMORY_KEYS: tuple[KeySpec, ...] = (
    KeySpec("memory_down", "j", "move(1)", "Next memory (also down)", "Memory panel"),
    KeySpec("memory_up", "k", "move(-1)", "Previous memory (also up)", "Memory panel"),
    KeySpec("memory_open", "enter", "open", "Read the memory file", "Memory panel", show=False),
    KeySpec("memory_edit", "e", "edit", "Edit it in $VISUAL / $EDITOR", "Memory panel"),
    KeySpec("memory_forget", "d", "forget", "Forget it (asks first)", "Memory panel"),
    KeySpec("memory_filter", "/", "filter", "Filter by words", "Memory panel"),
    KeySpec("memory_escape", "escape", "escape", "Leave or clear the filter, else close", "Memory panel"),
    KeySpec("memory_close", "q,f5", "close", "Close", "Memory panel", show=False),
)

REWIND_KEYS: tuple[KeySpec, ...] = (
    KeySpec("rewind_choose", "enter", "choose", "Go back to just before the selected message", "Rewind picker"),
    KeySpec("rewind_filter", "/", "filter", "Filter the messages by words", "Rewind picker"),
    KeySpec("rewind_down", "down", "move(1)", "Next (older) message (also from the filter box)", "Rewind picker", show=False),
    KeySpec("rewind_up", "up", "move(-1)", "Previous (newer) message", "Rewind picker", show=False),
    KeySpec("rewind_close", "escape", "escape", "Clear the filter, else close", "Rewind picker"),
)

ALL_KEYS: tuple[KeySpec, ...] = GLOBAL_KEYS + PROMPT_KEYS + MAP_KEYS + APPROVAL_KEYS + PICKER_KEYS + MEMORY_KEYS + REWIND_KEYS


def bindings(specs: tuple[KeySpec, ...]) -> list[Binding]:
    return [spec.binding() for spec in specs]


def make_priority(found: BindingsMap, ids: set[str]) -> None:
    """A global key remapped onto one the prompt uses itself must reach the app first."""
    if not ids:
        return
    import dataclasses

    for key, bound in found.key_to_bindings.items():
        found.key_to_bindings[key] = [dataclasses.replace(b, priority=True) if b.id in ids else b for b in bound]


def effective_key(spec: KeySpec, keymap: dict[str, str]) -> str:
    """The key(s) a spec answers to once the user's keymap is applied ("" once a remap took its only key)."""
    return keymap.get(spec.id, spec.key)


# Keys the prompt (a TextArea) answers to itself; a global key moved onto one must be a priority binding.
PROMPT_OWN_KEYS: dict[str, str] = {
    "f6": "Select line", "f7": "Select all", "home": "Cursor line start", "end": "Cursor line end",
    "ctrl+a": "Cursor line start", "ctrl+e": "Cursor line end", "ctrl+k": "Delete to line end", "ctrl+u": "Delete to line start",
    "ctrl+w": "Delete word left", "ctrl+d": "Delete right", "ctrl+x": "Cut", "ctrl+v": "Paste",
    "ctrl+z": "Undo", "ctrl+left": "Cursor word left", "ctrl+right": "Cursor word right",
}  # fmt: skip
# Keys a global action may not take: typing them must type.
_TYPING_KEYS = frozenset({"space", "enter", "backspace", "tab", "delete", "left", "right", "up", "down"})
_GROUPS: tuple[tuple[KeySpec, ...], ...] = (GLOBAL_KEYS + PROMPT_KEYS, MAP_KEYS, APPROVAL_KEYS, PICKER_KEYS, MEMORY_KEYS, REWIND_KEYS)


@dataclass
class KeymapPlan:
    """The user's keymap as it will be applied, and what the person should be told about it."""

    keymap: dict[str, str]  # id -> keys; "" for a key that lost its only key to a remapped one
    priority_ids: set[str]
    problems: list[str]


def _keys(value: str) -> list[str]:
    return [k.strip() for k in value.split(",") if k.strip()]


def plan_keymap(keymap: dict[str, str]) -> KeymapPlan:
    """Check a ``keymap:`` setting: unknown ids, keys that would stop typing, clashes and who wins.

    As in Textual, a remapped key wins over the default it collides with; the loser is
    named, so a remap never silently takes a key away.
    """
    specs = {spec.id: spec for spec in ALL_KEYS}
    global_ids = {spec.id for spec in GLOBAL_KEYS}
    plan = KeymapPlan(keymap={}, priority_ids=set(), problems=[])
    for key_id, value in keymap.items():
        if key_id not in specs:
            plan.problems.append(f"keymap: unknown key id '{key_id}' (F1 lists the ids); ignored")
            continue
        keys = _keys(str(value))
        typing = [k for k in keys if key_id in global_ids and (len(k) == 1 or k in _TYPING_KEYS)]
        if typing or not keys:
            plan.problems.append(f"keymap: {key_id} cannot take '{value}' (it would stop that key from typing); it keeps {specs[key_id].key}")
            continue
        plan.keymap[key_id] = ",".join(keys)
    for group in _GROUPS:
        ids = {spec.id for spec in group}
        for key_id, value in list(plan.keymap.items()):
            if key_id not in ids:
                continue
            for key in _keys(value):
                for other in group:
                    if other.id == key_id or other.id in plan.keymap:
                        continue
                    if key in _keys(other.key):
                        remaining = [k for k in _keys(other.key) if k != key]
                        plan.keymap[other.id] = ",".join(remaining)
                        if remaining:
                            plan.problems.append(f"keymap: {key} now runs {key_id}; {other.id} keeps {', '.join(remaining)}")
                        else:
                            plan.problems.append(
                                f"keymap: {key} now runs {key_id}; {other.id} ({other.description}) has no key left — "
                                f"give it one with keymap: {{{other.id}: ...}}"
                            )
    for key_id in global_ids & set(plan.keymap):
        for key in _keys(plan.keymap[key_id]):
            if key in PROMPT_OWN_KEYS:
                plan.priority_ids.add(key_id)
                plan.problems.append(f"keymap: {key} is also the prompt's '{PROMPT_OWN_KEYS[key]}'; {key_id} takes it everywhere")
    return plan
