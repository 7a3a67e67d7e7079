"""Which shell commands count as read-only, for the plan-mode / read-only shell.

An allowlist, not a blocklist: a command passes only when every program it runs
is known not to change anything with the arguments given, and it writes no
file through a redirection. Anything the parser cannot follow is refused.
"""

from __future__ import annotations

from collections.abc import Callable

from app.core.tools.shell_syntax import Redirect, SimpleCommand, parse_shell

# Programs that only read, whatever their arguments.
PLAIN_READERS = frozenset(
    {
        "basename", "cat", "cmp", "cut", "df", "diff", "dirname", "du", "echo", "egrep",
        "false", "fgrep", "grep", "head", "id", "ls", "nl", "pwd", "readlink",
        "realpath", "stat", "tail", "tr", "true", "uname", "wc", "which", "whoami",
    }
)  # fmt: skip
# Readers with a writing mode (date and hostname set the clock and the name, file -C and
# tree -o / -R write files): checked like find and git below.

FIND_ACTIONS_THAT_WRITE_OR_RUN = frozenset(
    {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
GIT_READ_SUBCOMMANDS = frozenset(
    {"status", "log", "diff", "show", "blame", "ls-files", "ls-tree", "rev-parse", "grep", "shortlog",
     "describe", "cat-file", "branch", "tag", "remote"}
)  # fmt: skip
# These three list things without arguments but create, rename or delete with them.
GIT_LISTERS = frozenset({"branch", "tag", "remote"})
GIT_LISTER_FLAGS_THAT_WRITE = ("--set-upstream-to", "--unset-upstream", "--edit-description", "-u")
# --output writes a file; -O/--open-files-in-pager and --ext-diff run other programs.
GIT_FLAGS_THAT_WRITE_OR_RUN = ("--output", "--open-files-in-pager", "-O", "--ext-diff")
SAFE_OUTPUT_TARGETS = frozenset({"/dev/null"})


def read_only_refusal(command: str) -> str | None:
    """Why ``command`` is not clearly read-only, or None when it is."""
    script = parse_shell(command)
    if not script.ok:
        return f"the command could not be analysed ({script.error or 'in a substitution'})"
    if script.substitutions:
        return "command substitution ($(...), `...`, <(...)) is not allowed"
    if script.grouping:
        return "subshells ( ... ) are not allowed"
    if "&" in script.operators:
        return "background jobs (&) are not allowed"
    if not script.commands:
        return "the command is empty"
    for simple in script.commands:
        reason = _redirect_refusal(simple.redirects) or _command_refusal(simple)
        if reason:
            return reason
    return None


def _redirect_refusal(redirects: list[Redirect]) -> str | None:
    for redirect in redirects:
        if redirect.operator == "<":
            continue
        if redirect.operator in (">&", "<&") and (redirect.target.isdigit() or redirect.target == "-"):
            continue  # 2>&1 copies a descriptor; nothing is written
        if redirect.operator in (">", ">>", "&>", "&>>") and redirect.target in SAFE_OUTPUT_TARGETS:
            continue
        return f"the redirection {redirect.operator} {redirect.target} could write a file"
    return None


def _command_refusal(simple: SimpleCommand) -> str | None:
    if simple.assignments:
        return f"setting environment variables ({simple.assignments[0]}) is not allowed"
    if not simple.argv:
        return "a redirection without a program is not allowed"
    program, args = simple.argv[0], simple.argv[1:]
    if program in PLAIN_READERS:
        return None
    checker = _CHECKERS.get(program)
    if checker is None:
        return f"{program} is not on the list of read-only commands"
    return checker(args)


def _check_find(args: list[str]) -> str | None:
    for arg in args:
        if arg in FIND_ACTIONS_THAT_WRITE_OR_RUN:
            return f"find {arg} can change files or run programs"
    return None


def _check_rg(args: list[str]) -> str | None:
    for arg in args:
        if _flag_in(arg, ("--pre", "--hostname-bin")):
            return f"rg {arg} runs another program"
    return None


def _check_date(args: list[str]) -> str | None:
    value_next = False
    for arg in args:
        if value_next:
            value_next = False
        elif arg.startswith("--"):
            if arg.startswith("--set"):
                return "date --set changes the system clock"
            value_next = arg in ("--date", "--file", "--reference")
        elif arg.startswith("-") and len(arg) > 1:
            letters, value_next = _short_letters(arg, "dfr")
            if "s" in letters:
                return "date -s changes the system clock"
        elif not arg.startswith("+"):
            return f"date {arg} sets the system clock (only +FORMAT may follow date)"
    return None


def _check_hostname(args: list[str]) -> str | None:
    for arg in args:
        short = arg[1:] if arg.startswith("-") and not arg.startswith("--") else ""
        # A name, -F FILE or -b sets the host name; only the reporting flags are read-only.
        if not arg.startswith("-") or _flag_in(arg, ("--file", "--boot")) or set(short) & set("bF"):
            return f"hostname {arg} sets the host name"
    return None


def _check_file(args: list[str]) -> str | None:
    for arg in args:
        if arg == "--compile" or (arg.startswith("-") and not arg.startswith("--") and "C" in _short_letters(arg, "eFfmP")[0]):
            return f"file {arg} writes a compiled magic file"
    return None


def _check_tree(args: list[str]) -> str | None:
    for arg in args:
        if arg.startswith("--output") or (arg.startswith("-") and not arg.startswith("--") and set(arg[1:]) & set("oR")):
            return f"tree {arg} writes files"
    return None


def _short_letters(arg: str, with_value: str) -> tuple[str, bool]:
    """The option letters of a ``-abc`` word, and whether the next word is the value of its last one."""
    for index, letter in enumerate(arg[1:], 1):
        if letter in with_value:
            return arg[1 : index + 1], index == len(arg) - 1
    return arg[1:], False


def _check_sort(args: list[str]) -> str | None:
    for arg in args:
        if arg.startswith(("--output", "--compress-program")):
            return f"sort {arg} writes a file or runs a program"
        if arg.startswith("-") and not arg.startswith("--") and "o" in arg:
            return "sort -o writes a file"
    return None


def _check_uniq(args: list[str]) -> str | None:
    # "uniq IN OUT" writes OUT.
    if len([arg for arg in args if not arg.startswith("-")]) > 1:
        return "uniq with an output file writes it"
    return None


def _check_git(args: list[str]) -> str | None:
    while args and args[0] == "--no-pager":
        args = args[1:]
    if not args:
        return None
    subcommand, rest = args[0], args[1:]
    if subcommand not in GIT_READ_SUBCOMMANDS:
        return f"git {subcommand} is not on the list of read-only git commands"
    for arg in rest:
        if _flag_in(arg, GIT_FLAGS_THAT_WRITE_OR_RUN):
            return f"git {subcommand} {arg} writes a file or runs a program"
    if subcommand in GIT_LISTERS:
        return _check_git_lister(subcommand, rest)
    return None


def _check_git_lister(subcommand: str, args: list[str]) -> str | None:
    for arg in args:
        if not arg.startswith("-") or _flag_in(arg, GIT_LISTER_FLAGS_THAT_WRITE):
            return f"git {subcommand} {arg} may change the repository; only listing is allowed"
    return None


def _flag_in(arg: str, flags: tuple[str, ...]) -> bool:
    """``--output=x`` and ``-Oless`` carry their value in the same word."""
    return any(arg == flag or arg.startswith(flag + "=") or (len(flag) == 2 and arg.startswith(flag)) for flag in flags)


_CHECKERS: dict[str, Callable[[list[str]], str | None]] = {
    "date": _check_date,
    "file": _check_file,
    "hostname": _check_hostname,
    "tree": _check_tree,
    "find": _check_find,
    "rg": _check_rg,
    "sort": _check_sort,
    "uniq": _check_uniq,
    "git": _check_git,
}
