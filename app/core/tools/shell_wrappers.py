"""Which programs a command line really runs: through wrappers, shells and find.

``sudo rm x``, ``env -i rm x``, ``timeout 5 rm x``, ``xargs rm``, ``bash -c 'rm x'``
and ``find . -delete`` all run ``rm``; a deny rule on ``rm`` must see it. Each
simple command of the parsed line yields the invocation as written and, peeled
one wrapper at a time, the invocations inside it. The wrappers handled are the
programs whose whole job is to run their operand as a command, each with its
real option syntax (from its ``--help`` on a GNU/Linux system):

- shell builtins: ``command``, ``builtin``, ``exec``, ``time``, ``nohup``;
- coreutils / util-linux / findutils launchers: ``env``, ``nice``, ``timeout``,
  ``stdbuf``, ``chroot``, ``ionice``, ``setsid``, ``taskset``, ``xargs``;
- privilege: ``sudo``, ``doas``, ``su``/``runuser -c STRING``, ``runuser -u USER CMD``;
- ``flock FILE CMD`` / ``flock FILE -c STRING``, ``watch CMD...`` (joined and run by ``sh -c``),
  ``strace``/``ltrace CMD``;
- shells: ``bash``, ``sh``, ``zsh``, ``dash``, ``ksh``, ``mksh`` with ``-c STRING``
  (the string is parsed and analysed like the line itself);
- ``find -exec/-execdir/-ok/-okdir CMD ... ;`` and ``find -delete`` (counted as ``rm``).

Whatever hides the program — an option of a wrapper that is not known, ``sudo -s``,
a shell reading its commands from stdin or a heredoc, ``eval``, ``source``,
``trap``, an assignment to ``PATH``/``BASH_ENV``/``LD_PRELOAD`` and the like — makes
the analysis ``unknown_program``: callers never allow it on a rule and count it as
matching every deny rule.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import field
from app.dataclass import dataclass

from app.core.tools.shell_assigning import assigned_names, evaluating_reason
from app.core.tools.shell_options import OptionSpec, parse_options, spec
from app.core.tools.shell_syntax import ShellScript, SimpleCommand, Word, parse_shell

MAX_DEPTH = 8  # bash -c 'bash -c "..."' nesting followed before giving up


@dataclass(frozen=True)
class Wrapper:
    """How one wrapper program finds the command it runs among its arguments."""

    options: OptionSpec
    leading: int = 0  # operands before the command: timeout DURATION, chroot NEWROOT, taskset MASK
    assignments: bool = False  # env NAME=VALUE ... COMMAND
    appends: bool = False  # xargs adds arguments read from stdin
    optional: bool = False  # without a command it runs nothing (env, nice, exec alone)
    default: str = ""  # the command it runs when none is given (xargs: echo)
    no_command: frozenset[str] = frozenset()  # options meaning "act on a pid, run nothing"
    hides: frozenset[str] = frozenset()  # options that run something we cannot see (sudo -s)
    strings: frozenset[str] = frozenset()  # options whose value is a command line for a shell (su -c)
    needs_string: bool = False  # without such an option it opens a shell (su)
    joins: frozenset[str] = frozenset()  # unless one of these options is given, the operands are joined
    # into one command line for "sh -c" (watch; watch -x runs them as they are)
    max_operands: int | None = None  # operands it takes besides the command string (su USER)
    direct: frozenset[str] = frozenset()  # options after which the operands are the command (runuser -u)


WRAPPERS: dict[str, Wrapper] = {
    "command": Wrapper(spec("pvV", permute=False), optional=True),
    "builtin": Wrapper(spec(permute=False), optional=True),
    "exec": Wrapper(spec("cl", "a", permute=False), optional=True),
    "time": Wrapper(spec("p", permute=False), optional=True),
    "nohup": Wrapper(spec(permute=False)),
    "env": Wrapper(
        spec("i0v", "uCS", "ignore-environment null debug list-signal-handling", "unset chdir split-string",
             "block-signal default-signal ignore-signal", permute=False),  # fmt: skip
        assignments=True,
        optional=True,
        hides=frozenset({"-S", "--split-string"}),  # re-splits a string into a command line
    ),
    "nice": Wrapper(spec("", "n", "", "adjustment", numeric=True, permute=False), optional=True),
    "timeout": Wrapper(spec("v", "ks", "preserve-status foreground verbose", "kill-after signal", permute=False), leading=1),
    "stdbuf": Wrapper(spec("", "ioe", "", "input output error", permute=False)),
    "chroot": Wrapper(spec("", "", "skip-chdir", "groups userspec", permute=False), leading=1),
    "ionice": Wrapper(
        spec("t", "cnpPu", "ignore", "class classdata pid pgid uid", permute=False),
        no_command=frozenset({"-p", "-P", "-u", "--pid", "--pgid", "--uid"}),
    ),
    "setsid": Wrapper(spec("cfw", "", "ctty fork wait", permute=False)),
    "taskset": Wrapper(spec("ac", "", "all-tasks cpu-list", permute=False), leading=1),
    "xargs": Wrapper(
        spec("0prtxo", "adEILns", "null no-run-if-empty interactive verbose exit show-limits open-tty",
             "arg-file delimiter max-lines max-args max-procs max-chars process-slot-var", "eof replace",
             permute=False),  # fmt: skip
        appends=True,
        optional=True,
        default="echo",
    ),
    "sudo": Wrapper(
        spec("AbEHnPSiksBNlLKVe", "ugChpDrtTU",
             "askpass background preserve-env set-home non-interactive preserve-groups stdin shell login "
             "reset-timestamp remove-timestamp bell list validate edit",
             "user group close-from host prompt chdir role type command-timeout other-user", permute=False),  # fmt: skip
        hides=frozenset({"-s", "--shell", "-i", "--login", "-e", "--edit"}),
    ),
    "doas": Wrapper(spec("nSs", "Cu", permute=False), hides=frozenset({"-s", "-S", "-C"})),
    "su": Wrapper(
        spec("mplfP", "wgGcsu", "preserve-environment login fast pty",
             "whitelist-environment group supp-group command session-command shell user"),  # fmt: skip
        strings=frozenset({"-c", "--command", "--session-command"}),
        needs_string=True,
        max_operands=1,
    ),
    "flock": Wrapper(
        spec("sxunoF", "wEc", "shared exclusive unlock nonblock close no-fork verbose", "timeout conflict-exit-code command",
             permute=False),  # fmt: skip
        leading=1,
        optional=True,  # "flock FD" locks a descriptor and runs nothing
        strings=frozenset({"-c", "--command"}),
    ),
    "watch": Wrapper(
        spec("bceghptwx", "nq", "beep color errexit chgexit precise no-title no-wrap exec", "interval equexit",
             "differences", permute=False),  # fmt: skip
        joins=frozenset({"-x", "--exec"}),
    ),
    "strace": Wrapper(spec("ACdfhikqrtTvVwxyzZcD", "IbeaosXOSPpUEu", "seccomp-bpf", "", permute=False),
                      no_command=frozenset({"-p"})),  # fmt: skip
}
WRAPPERS["runuser"] = Wrapper(
    spec("mplfP", "wgGcsu", "preserve-environment login fast pty",
         "whitelist-environment group supp-group command session-command shell user", permute=False),  # fmt: skip
    strings=frozenset({"-c", "--command", "--session-command"}),
    needs_string=True,
    max_operands=1,
    direct=frozenset({"-u", "--user"}),
)
WRAPPERS["ltrace"] = Wrapper(spec("bcCfhiLrStTV", "aAeIlnopsuwx", "", "", permute=False), no_command=frozenset({"-p"}))
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh"})
FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# Builtins that run text or a file as commands, or change what later names mean.
HIDING_BUILTINS = {
    "eval": "eval runs its arguments as a new command line",
    "source": "source runs a file's commands in this shell (and can redefine any later name)",
    ".": ". runs a file's commands in this shell (and can redefine any later name)",
    "trap": "trap runs a string as a command later",
    "alias": "alias can give a name a new meaning",
    "enable": "enable can load a builtin from a file",
    "shopt": "shopt can turn on alias expansion and other meanings",
    "hash": "hash -p can point a name at any program",
    "fc": "fc re-runs commands from the history",
    "coproc": "coproc runs a command the analysis does not follow",
    "mapfile": "mapfile -C runs a callback",
    "readarray": "readarray -C runs a callback",
}
# Variables that change which program a name runs, run code when a shell starts, or name a
# program that another one runs (a pager, an editor, git's ssh and diff commands).
HIDING_VARIABLES = frozenset(
    {"PATH", "BASH_ENV", "ENV", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "IFS", "SHELLOPTS", "BASHOPTS",
     "PROMPT_COMMAND", "PS4", "BASH_LOADABLES_PATH", "CDPATH", "GLOBIGNORE", "PAGER", "MANPAGER", "EDITOR",
     "VISUAL", "LESSOPEN", "LESSCLOSE", "SSH_ASKPASS", "GIT_PAGER", "GIT_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND",
     "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "GIT_EXEC_PATH", "GIT_SEQUENCE_EDITOR"}
)  # fmt: skip
# git -c / --config-env can set core.pager, alias.x=!cmd, diff.external...: programs git would run.
GIT_CONFIG_OPTIONS = ("-c", "--config-env")


@dataclass
class Invocation:
    """A program that runs: as written (``wrapper == ""``) or found inside another one."""

    words: list[Word]
    assignments: list[Word] = field(default_factory=list)
    appended: bool = False  # more arguments are added when it runs (xargs, find -exec ... {})
    wrapper: str = ""  # what runs it: "sudo", "bash -c", "find -exec"

    @property
    def name(self) -> str:
        """The program's name; a path counts as its last part (``/bin/rm`` is ``rm``)."""
        return os.path.basename(self.words[0].text) if self.words else ""

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.assignments + self.words)

    @property
    def dynamic(self) -> bool:
        """Some argument is known only when it runs."""
        return self.appended or any(not w.known for w in self.assignments + self.words)


@dataclass
class Analysis:
    """Everything a command line runs, wrappers peeled, or why that cannot be known."""

    invocations: list[Invocation] = field(default_factory=list)
    commands: list[SimpleCommand] = field(default_factory=list)  # every simple command, nested shells too
    scripts: list[ShellScript] = field(default_factory=list)
    error: str | None = None  # unanalysable: never allowed on a rule
    unknown_program: bool = False  # counts as matching every deny rule

    @property
    def ok(self) -> bool:
        return self.error is None

    def fail(self, reason: str, *, hides_program: bool = True) -> None:
        self.error = self.error or reason
        self.unknown_program = self.unknown_program or hides_program


def analyse_command(command: str) -> Analysis:
    analysis = Analysis()
    _analyse_script(parse_shell(command), analysis, 0)
    return analysis


def _analyse_script(script: ShellScript, analysis: Analysis, depth: int) -> None:
    analysis.scripts.append(script)
    if not script.ok:
        analysis.fail(script.first_error or "it could not be analysed", hides_program=script.hides_program)
    for simple in script.all_commands():
        analysis.commands.append(simple)
        _check_assignments(simple.assignment_words, analysis)
        if not simple.argv_words:
            continue
        outer = Invocation(list(simple.argv_words), list(simple.assignment_words))
        analysis.invocations.append(outer)
        for inner in _unwrap(outer, analysis, depth):
            analysis.invocations.append(inner)


def _check_assignments(words: list[Word], analysis: Analysis) -> None:
    for word in words:
        name = word.text.split("=", 1)[0].rstrip("+")
        if name in HIDING_VARIABLES or name.startswith(("BASH_FUNC_", "GIT_CONFIG_")):
            analysis.fail(f"setting {name} changes which program a name runs")


def _check_assigned_names(invocation: Invocation, analysis: Analysis) -> None:
    """printf -v / read / getopts / unset / test -v: a subscript is arithmetic (it can run
    commands), a name like PATH changes what later runs; let and declare -i / -n evaluate."""
    reason = evaluating_reason(invocation.name, invocation.words)
    if reason:
        analysis.fail(reason)
    for word in assigned_names(invocation.name, invocation.words):
        variable = word.text
        if not word.known or "[" in variable:
            analysis.fail(f"{invocation.name} names the variable {variable!r}, whose subscript bash evaluates "
                          "(arithmetic can run commands)")
        elif variable in HIDING_VARIABLES or variable.startswith(("BASH_FUNC_", "GIT_CONFIG_")):
            analysis.fail(f"{invocation.name} sets {variable}, which changes which program a name runs")


def _unwrap(invocation: Invocation, analysis: Analysis, depth: int) -> Iterator[Invocation]:
    current: Invocation | None = invocation
    for _ in range(MAX_DEPTH):
        if current is None or not current.words:
            return
        name = current.name
        if not current.words[0].known:
            return  # already reported by the parser
        if name in HIDING_BUILTINS:
            analysis.fail(HIDING_BUILTINS[name])
            return
        _check_assigned_names(current, analysis)
        if name in ("declare", "typeset", "export", "local", "readonly"):
            _check_assignments([w for w in current.words[1:] if "=" in w.text], analysis)
            if any(w.text.startswith("-") and "f" in w.text for w in current.words[1:]):
                analysis.fail(f"{name} -f works with functions, which can give a name a new meaning")
            return
        if name in SHELLS:
            yield from _shell_string(current, analysis, depth)
            return
        if name == "git" and _sets_git_config(current):
            analysis.fail("git -c / --config-env can make git run any program (a pager, an alias, a diff driver)")
            return
        if name == "find":
            for inner in _find(current, analysis):
                yield inner
                # What -exec runs may be a wrapper or a shell itself: find -exec bash -c 'rm x' \;
                yield from _unwrap(inner, analysis, depth + 1)
            return
        wrapper = WRAPPERS.get(name)
        if wrapper is None:
            return
        if wrapper.strings or wrapper.joins:
            strings = _command_strings(current, wrapper, analysis)
            if strings is not None:
                for text in strings:
                    _analyse_script(parse_shell(text), analysis, depth + 1)
                return
        current = _peel(current, wrapper, analysis)
        if current is not None:
            yield current
    analysis.fail("wrappers nested too deeply to follow")


def _peel(invocation: Invocation, wrapper: Wrapper, analysis: Analysis) -> Invocation | None:
    """The command a wrapper runs, or None when it runs none."""
    name = invocation.name
    words = invocation.words[1:]
    texts = [w.text for w in words]
    parsed = parse_options(texts, wrapper.options)
    if parsed.error:
        analysis.fail(f"{name}: {parsed.error}, so the command it runs is not known")
        return None
    option_words = words[: parsed.rest_at]
    if any(not w.known for w in option_words):
        analysis.fail(f"{name} has an option known only when it runs")
        return None
    used = {option for option, _ in parsed.options}
    if used & wrapper.hides:
        analysis.fail(f"{name} {sorted(used & wrapper.hides)[0]} runs something the analysis cannot see")
        return None
    if used & wrapper.no_command:
        return None
    rest = words[parsed.rest_at :]
    if len(rest) < wrapper.leading:
        analysis.fail(f"{name} is missing an operand, so the command it runs is not known")
        return None
    rest = rest[wrapper.leading :]
    assignments: list[Word] = []
    if wrapper.assignments:
        while rest and "=" in rest[0].text and not rest[0].text.startswith("="):
            assignments.append(rest.pop(0))
        _check_assignments(assignments, analysis)
    if not rest:
        if wrapper.default:
            return Invocation([Word(wrapper.default)], appended=wrapper.appends, wrapper=name)
        if not wrapper.optional:
            analysis.fail(f"{name} without a command runs a shell or nothing the analysis can see")
        return None
    if not rest[0].known:
        analysis.fail(f"{name} runs a program whose name is known only when it runs")
        return None
    return Invocation(rest, assignments, appended=wrapper.appends or invocation.appended, wrapper=name)


def _command_strings(invocation: Invocation, wrapper: Wrapper, analysis: Analysis) -> list[str] | None:
    """The command lines ``su -c STRING`` / ``flock F -c STRING`` / ``watch CMD...`` hand to a shell.

    None when the wrapper runs its operands as a command instead (flock FILE CMD, watch -x), left to _peel;
    an empty list when what it runs cannot be known (reported).
    """
    name = invocation.name
    words = invocation.words[1:]
    options_spec = wrapper.options if wrapper.max_operands is None else OptionSpec(**{**wrapper.options.__dict__, "permute": True})
    parsed = parse_options([w.text for w in words], options_spec)
    if parsed.error or any(not w.known for w in words[: parsed.rest_at]):
        analysis.fail(f"{name}: {parsed.error or 'an option known only when it runs'}, so the command it runs is not known")
        return []
    used = {option for option, _ in parsed.options}
    strings = [value or "" for option, value in parsed.options if option in wrapper.strings]
    rest = words[parsed.rest_at :]
    if wrapper.leading and len(rest) > wrapper.leading and rest[wrapper.leading].text in wrapper.strings:
        # flock FILE -c STRING: the option comes after the lock file.
        if len(rest) != wrapper.leading + 2:
            analysis.fail(f"{name} {rest[wrapper.leading].text} needs exactly one command string")
            return []
        strings.append(rest[wrapper.leading + 1].text)
    operands = [o for o in parsed.operands if o != "-"]  # su - USER: "-" means a login shell
    if used & wrapper.direct and not strings:
        return None  # runuser -u USER CMD: the operands are the command
    if strings:
        if wrapper.max_operands is not None and len(operands) > wrapper.max_operands:
            analysis.fail(f"{name} passes extra operands to a shell, so what it runs is not known")
            return []
        if any(not w.known for w in words):
            analysis.fail(f"{name} runs a command line known only when it runs")
            return []
        return strings
    if wrapper.needs_string:
        analysis.fail(f"{name} without -c opens a shell whose commands the analysis cannot see")
        return []
    if wrapper.joins and not used & wrapper.joins:
        if not rest:
            analysis.fail(f"{name} without a command is not analysed")
            return []
        if any(not w.known for w in rest):
            analysis.fail(f"{name} runs a command line known only when it runs")
            return []
        return [" ".join(w.text for w in rest)]  # watch joins its operands and runs them with sh -c
    return None


def _shell_string(invocation: Invocation, analysis: Analysis, depth: int) -> Iterator[Invocation]:
    """``bash -c 'STRING'``: STRING analysed like the line; ``bash FILE``: running FILE."""
    name = invocation.name
    words = invocation.words[1:]
    command_mode = False
    index = 0
    while index < len(words):
        word = words[index]
        text = word.text
        if not word.known:
            analysis.fail(f"{name} has an argument known only when it runs, so what it runs is not known")
            return
        if text in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            index += 2
            continue
        if text in ("--login", "--noprofile", "--norc", "--posix", "--noediting", "--restricted", "--verbose", "--"):
            index += 1
            if text == "--":
                break
            continue
        if text.startswith("--"):
            analysis.fail(f"{name} {text} is not an option the analysis knows")
            return
        if text[:1] in "-+" and len(text) > 1:
            if "s" in text[1:] and text[0] == "-":
                analysis.fail(f"{name} -s reads its commands from stdin")
                return
            command_mode = command_mode or "c" in text[1:]
            index += 1
            continue
        break
    rest = words[index:]
    if command_mode:
        if not rest:
            analysis.fail(f"{name} -c has no command string")
            return
        if depth >= MAX_DEPTH:
            analysis.fail("shells nested too deeply to follow")
            return
        _analyse_script(parse_shell(rest[0].text), analysis, depth + 1)
        return
    if not rest:
        analysis.fail(f"{name} reads its commands from stdin (a pipe or heredoc) the analysis cannot see")
        return
    yield Invocation(rest, appended=invocation.appended, wrapper=name)  # a script: it runs as that program


def _find(invocation: Invocation, analysis: Analysis) -> Iterator[Invocation]:
    words = invocation.words[1:]
    index = 0
    while index < len(words):
        text = words[index].text
        if text == "-delete":
            yield Invocation([Word("rm")], appended=True, wrapper="find -delete")
        elif text in FIND_EXEC:
            end = index + 1
            while end < len(words) and words[end].text not in (";", "+"):
                end += 1
            inner = words[index + 1 : end]
            if end >= len(words) or not inner:
                analysis.fail(f"find {text} without its terminating ';' or '+' is not analysed")
                return
            if not inner[0].known:
                analysis.fail(f"find {text} runs a program whose name is known only when it runs")
                return
            yield Invocation(inner, appended=True, wrapper=f"find {text}")
            index = end
        index += 1


def _sets_git_config(invocation: Invocation) -> bool:
    """``git -c x=y ...`` or ``--config-env``, among the options before the subcommand."""
    for word in invocation.words[1:]:
        text = word.text
        if text in GIT_CONFIG_OPTIONS or text.startswith("--config-env=") or (text.startswith("-c") and len(text) > 2):
            return True
        if not text.startswith("-"):
            return False
    return False
