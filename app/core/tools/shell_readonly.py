"""Which shell commands count as read-only: the class that runs with no approval.

Memory agents, speculative turns and skills' grants run these without asking,
so it is an allowlist of commands *and their options* (shell_readonly_table.py),
not a blocklist. A command passes only when:

- the line was fully analysed (shell_syntax.py) and holds no substitution,
  subshell, group, background job, assignment or wrapper;
- every program is in the table by its bare name (``/bin/cat`` is not), and
  every option it is given is listed for it — an abbreviated long option
  (``--outp``) or an unknown one fails, as do the output, pager and exec options
  the table leaves out; a second operand where the program would write it
  (``uniq in out``) fails;
- every word is known before it runs: ``$x`` and ``~`` fail; a ``*``/``?`` glob is
  expanded here, as bash would, and each name checked like a word (a file named
  ``--output=x`` fails); bracket and brace globs fail;
- no redirection writes anything but ``/dev/null``;
- every path it reads — operands, path-valued options, ``< file``, and the
  current directory for ``ls``/``find``/``rg``/``grep -r`` — resolves, symlinks
  followed, inside ``roots`` (the project; the memory directory for the memory
  agents).
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from pathlib import Path

from app.core.tools.shell_options import parse_options
from app.core.tools.shell_readonly_table import GIT, GIT_GLOBAL, ReadOnlyCommand, command_row
from app.core.tools.shell_syntax import Redirect, SimpleCommand, Word, parse_shell

SAFE_OUTPUT_TARGETS = frozenset({"/dev/null"})
FIND_LEADING = frozenset({"-H", "-P"})
FIND_OPERATORS = frozenset({"(", ")", "!", ",", "-not", "-a", "-and", "-o", "-or"})
FIND_FLAGS = frozenset(
    {"-print", "-print0", "-ls", "-prune", "-quit", "-true", "-false", "-empty", "-readable", "-writable",
     "-executable", "-nouser", "-nogroup", "-depth", "-mount", "-xdev", "-noleaf", "-daystart",
     "-ignore_readdir_race", "-noignore_readdir_race"}
)  # fmt: skip
FIND_VALUED = frozenset(
    {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type", "-xtype",
     "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-maxdepth", "-mindepth", "-user", "-group",
     "-uid", "-gid", "-perm", "-links", "-inum", "-printf", "-regextype", "-lname", "-ilname", "-used", "-fstype"}
)  # fmt: skip
FIND_PATH_VALUED = frozenset({"-newer", "-anewer", "-cnewer", "-samefile"})
FIND_WRITES_OR_RUNS = frozenset(
    {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
_NEWER_XY = re.compile(r"-newer[aBcm][aBcmt]")
_GLOB_UNSAFE = re.compile(r"[\[\]{}]")


def read_only_refusal(command: str, *, roots: Sequence[Path] | None = None, cwd: Path | None = None) -> str | None:
    """Why ``command`` is not clearly read-only, or None when it is.

    ``cwd`` is where it would run (default: this process's working directory) and
    ``roots`` the directories its reads must stay in (default: ``[cwd]``).
    """
    here = Path(cwd) if cwd is not None else Path.cwd()
    checker = _Checker(here, [Path(r) for r in roots] if roots is not None else [here])
    return checker.refusal(command)


class _Checker:
    def __init__(self, cwd: Path, roots: list[Path]) -> None:
        self.cwd = cwd
        self.roots = [os.path.realpath(r) for r in roots]

    def refusal(self, command: str) -> str | None:
        script = parse_shell(command)
        if not script.ok:
            return f"the command could not be analysed ({script.first_error})"
        if script.substitutions:
            return "command substitution ($(...), `...`, <(...)) is not allowed"
        if script.grouping:
            return "subshells, { ...; } groups, loops and conditionals are not allowed"
        if "&" in script.operators:
            return "background jobs (&) are not allowed"
        if not script.commands:
            return "the command is empty"
        for simple in script.commands:
            reason = self._redirects(simple.redirects) or self._command(simple)
            if reason:
                return reason
        return None

    # -- one simple command ---------------------------------------------------------------------------

    def _redirects(self, redirects: list[Redirect]) -> str | None:
        for redirect in redirects:
            op, target = redirect.operator, redirect.target
            if op in ("<<", "<<-", "<<<"):
                continue  # text given inline
            if redirect.word is not None and not redirect.word.known:
                return f"the redirection {op} {target} names a file known only when it runs"
            if op == "<":
                reason = self._inside(target, f"< {target}")
                if reason:
                    return reason
                continue
            if op in (">&", "<&") and (target.isdigit() or target == "-"):
                continue  # 2>&1 copies a descriptor; nothing is written
            if op in (">", ">>", "&>", "&>>", ">&") and target in SAFE_OUTPUT_TARGETS:
                continue
            return f"the redirection {op} {target} could write a file"
        return None

    def _command(self, simple: SimpleCommand) -> str | None:
        if simple.assignments:
            return f"setting environment variables ({simple.assignments[0]}) is not allowed"
        if not simple.argv_words:
            return "a redirection without a program is not allowed"
        program = simple.argv_words[0].text
        row = command_row(program)
        if row is None:
            return f"{program} is not on the list of read-only commands"
        words = self._expand(simple.argv_words[1:], program)
        if isinstance(words, str):
            return words
        return self._row(program, row, words)

    def _expand(self, words: list[Word], program: str) -> list[str] | str:
        """The words bash would pass, globs expanded here; a refusal when that cannot be known."""
        out: list[str] = []
        for word in words:
            if word.dynamic:
                return f"{program}: {word.text} is known only when it runs"
            if not word.glob:
                out.append(word.text)
                continue
            if _GLOB_UNSAFE.search(word.text):
                return f"{program}: the pattern {word.text} (brackets or braces) is not analysed"
            matches = sorted(glob.glob(word.text, root_dir=self.cwd))
            for name in matches:
                if name.startswith("-"):
                    return f"{program}: {word.text} matches {name}, a file name bash would pass as an option"
            out.extend(matches or [word.text])  # no match: bash passes the pattern as it is
        return out

    def _row(self, program: str, row: ReadOnlyCommand, args: list[str]) -> str | None:
        if row.rule == "printf" and args and args[0].startswith("-v"):
            return "printf -v assigns a shell variable (and evaluates any subscript in its name)"
        if row.rule == "any-words" or row.rule == "printf":
            return None
        if row.rule == "find":
            return self._find(args)
        if row.rule == "git":
            return self._git(args)
        parsed = parse_options(args, row.options)
        if parsed.error:
            return _unknown_option(program, parsed.offender, row)
        return self._operands(program, row, parsed.options, parsed.operands)

    def _operands(self, program: str, row: ReadOnlyCommand, options: list[tuple[str, str | None]], operands: list[str]) -> str | None:
        if row.max_operands is not None and len(operands) > row.max_operands:
            if program == "uniq":
                return "uniq with a second operand writes it (the output file)"
            return f"{program} takes at most {row.max_operands} operand(s) when it only reads; got {len(operands)}"
        used = {name for name, _ in options}
        if row.rule == "date":
            for operand in operands:
                if not operand.startswith("+"):
                    return f"date {operand} sets the system clock (only +FORMAT may follow date)"
        paths = [value for name, value in options if name in row.path_options and value is not None]
        if row.paths == "all":
            read = operands if row.rule != "cmp" else operands[:2]
        elif row.paths == "after-pattern":
            read = operands if used & row.pattern_options else operands[1:]
        elif row.paths == "maybe":
            read = [o for o in operands if self._looks_like_path(o)]
        else:
            read = []
        recursive = row.rule == "grep" and bool(
            used & {"-r", "--recursive"} or any(v == "recurse" for n, v in options if n in ("-d", "--directories"))
        )
        paths += read if read or not (row.reads_cwd or recursive) else ["."]
        for path in paths:
            if path == "-":
                continue
            reason = self._inside(path, f"{program} {path}")
            if reason:
                return reason
        if row.rule == "git-list" and operands and not used & {"-l", "--list"}:
            return f"{program} {operands[0]} may change the repository; only listing is allowed"
        return None

    def _looks_like_path(self, operand: str) -> bool:
        return os.path.isabs(operand) or ".." in operand.split("/") or os.path.lexists(os.path.join(self.cwd, operand))

    def _inside(self, path: str, shown: str) -> str | None:
        real = os.path.realpath(os.path.join(self.cwd, path))
        if any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots):
            return None
        where = " or ".join(self.roots)
        return f"{shown} reads {real}, which is outside {where}"

    # -- find and git ---------------------------------------------------------------------------------

    def _find(self, args: list[str]) -> str | None:
        index = 0
        while index < len(args) and args[index].startswith("-") and args[index] not in FIND_OPERATORS:
            arg = args[index]
            if arg in FIND_LEADING or re.fullmatch(r"-O\d", arg):
                index += 1
                continue
            if arg in ("-L", "-follow"):
                return f"find {arg} follows symlinks, out of the project too"
            break
        starts: list[str] = []
        while index < len(args) and not (args[index].startswith("-") or args[index] in FIND_OPERATORS):
            starts.append(args[index])
            index += 1
        paths = starts or ["."]
        while index < len(args):
            arg = args[index]
            if arg in FIND_OPERATORS or arg in FIND_FLAGS:
                index += 1
            elif arg in FIND_VALUED or _NEWER_XY.fullmatch(arg):
                if index + 1 >= len(args):
                    return f"find {arg} needs a value"
                if _NEWER_XY.fullmatch(arg) and not arg.endswith("t"):
                    paths.append(args[index + 1])
                index += 2
            elif arg in FIND_PATH_VALUED:
                if index + 1 >= len(args):
                    return f"find {arg} needs a value"
                paths.append(args[index + 1])
                index += 2
            elif arg in FIND_WRITES_OR_RUNS:
                return f"find {arg} can change files or run programs"
            elif arg == "-follow":
                return "find -follow follows symlinks, out of the project too"
            else:
                return f"find {arg} is not known to only read"
        for path in paths:
            reason = self._inside(path, f"find {path}")
            if reason:
                return reason
        return None

    def _git(self, args: list[str]) -> str | None:
        parsed = parse_options(args, GIT_GLOBAL)
        if parsed.error:
            return _unknown_option("git", parsed.offender, None)
        rest = args[parsed.rest_at :]
        if not rest:
            return None  # "git" or "git --version": prints
        subcommand, sub_args = rest[0], rest[1:]
        row = GIT.get(subcommand)
        if row is None:
            return f"git {subcommand} is not on the list of read-only git commands"
        sub = parse_options(sub_args, row.options)
        if sub.error:
            reason = _unknown_option(f"git {subcommand}", sub.offender, row)
            return reason + ("; only listing is allowed" if row.rule == "git-list" else "")
        if row.rule == "git-remote" and sub.operands and not (sub.operands[0] == "get-url" and len(sub.operands) == 2):
            return f"git remote {sub.operands[0]} may change the repository or reach the network; only listing is allowed"
        if row.rule == "git-config":
            used = {name for name, _ in sub.options}
            reading = used & {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l"}
            if (not reading and len(sub.operands) != 1) or len(sub.operands) > 2:
                return "git config with a value or without --get/--list may change the configuration"
            outside = used & {"--global", "--system", "-f", "--file"}
            if outside:
                return f"git config {sorted(outside)[0]} reads a file outside the project (it may hold tokens)"
            if used & {"--list", "-l", "--get-regexp", "--get-urlmatch"} and not used & {"--local", "--worktree"}:
                return "git config listing without --local also reads the user's and the system's files (they may hold tokens)"
        return self._operands(f"git {subcommand}", row, sub.options, sub.operands)


def _unknown_option(program: str, offender: str, row: ReadOnlyCommand | None) -> str:
    return f"{program} {offender} is not known to only read (unknown, abbreviated, writing, paging or running options are refused)"
