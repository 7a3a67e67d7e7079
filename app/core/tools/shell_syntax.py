"""Just enough of the shell grammar to see which programs a command line runs.

Permission rules and the read-only shell need the simple commands inside
``a && b | c``, their redirections, and what hides in ``$(...)``. This is not a
shell: anything it cannot follow is reported, and callers treat that as "not
provably safe". Quotes are honoured, so ``echo "a; b"`` is one command.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

CONTROL_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "\n")
REDIRECT_OPERATORS = ("&>>", "<<<", "<<-", ">>", "<<", "&>", ">&", "<&", "<>", ">|", ">", "<")
GROUPING = ("(", ")")
# Longest first, so "&&" is not read as two "&".
_OPERATORS = sorted(CONTROL_OPERATORS + REDIRECT_OPERATORS + GROUPING, key=len, reverse=True)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass
class Redirect:
    operator: str
    target: str


@dataclass
class SimpleCommand:
    """One program invocation: ``FOO=1 grep -n x file 2>/dev/null``."""

    words: list[str] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)

    @property
    def assignments(self) -> list[str]:
        """Leading ``NAME=value`` words, which set the environment of the program."""
        out: list[str] = []
        for word in self.words:
            if not _ASSIGNMENT.match(word):
                break
            out.append(word)
        return out

    @property
    def argv(self) -> list[str]:
        """The program and its arguments, without leading assignments."""
        return self.words[len(self.assignments) :]

    @property
    def program(self) -> str:
        argv = self.argv
        return argv[0] if argv else ""

    @property
    def text(self) -> str:
        """The words joined by spaces (quotes removed), what permission rules match."""
        return " ".join(self.words)


@dataclass
class ShellScript:
    commands: list[SimpleCommand] = field(default_factory=list)
    operators: list[str] = field(default_factory=list)
    substitutions: list[ShellScript] = field(default_factory=list)
    grouping: bool = False  # ( ... ) subshells
    error: str | None = None

    def all_commands(self) -> Iterator[SimpleCommand]:
        """Every simple command, including those inside substitutions."""
        yield from self.commands
        for inner in self.substitutions:
            yield from inner.all_commands()

    @property
    def ok(self) -> bool:
        return self.error is None and all(inner.ok for inner in self.substitutions)


def parse_shell(command: str) -> ShellScript:
    return _Parser(command).parse()


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.script = ShellScript()
        self.current = SimpleCommand()
        self.word: list[str] = []
        self.in_word = False
        self.pending_redirect: str | None = None

    def parse(self) -> ShellScript:
        try:
            while self.pos < len(self.text):
                self._step()
            self._end_word()
            self._end_command(None)
        except _ParseError as exc:
            self.script.error = str(exc)
        return self.script

    def _step(self) -> None:
        text, pos = self.text, self.pos
        char = text[pos]
        if char in " \t":
            self._end_word()
            self.pos += 1
        elif char == "\\":
            self._escape()
        elif char == "'":
            end = text.find("'", pos + 1)
            if end == -1:
                raise _ParseError("unterminated single quote")
            self._add(text[pos + 1 : end])
            self.pos = end + 1
        elif char == '"':
            self._double_quoted()
        elif char == "#" and not self.in_word:
            newline = text.find("\n", pos)
            self.pos = len(text) if newline == -1 else newline
        elif text.startswith("$(", pos):
            self._substitution(pos + 2)
        elif char in "<>" and text.startswith("(", pos + 1):
            self._substitution(pos + 2)  # process substitution: <(cmd) or >(cmd)
        elif char == "`":
            self._backtick()
        else:
            operator = next((op for op in _OPERATORS if text.startswith(op, pos)), None)
            if operator is None:
                self._add(char)
                self.pos += 1
            else:
                self._operator(operator)
                self.pos += len(operator)

    def _escape(self) -> None:
        following = self.text[self.pos + 1 : self.pos + 2]
        if following == "\n":
            self.pos += 2  # a line continuation joins the lines
            return
        self._add(following or "\\")
        self.pos += 2

    def _double_quoted(self) -> None:
        self.in_word = True  # "" is an (empty) word
        pos = self.pos + 1
        while pos < len(self.text):
            char = self.text[pos]
            if char == '"':
                self.pos = pos + 1
                return
            if char == "\\" and self.text[pos + 1 : pos + 2] in ('"', "\\", "$", "`", "\n"):
                self._add(self.text[pos + 1])
                pos += 2
            elif self.text.startswith("$(", pos):
                self.pos = pos
                self._substitution(pos + 2)
                pos = self.pos
            elif char == "`":
                self.pos = pos
                self._backtick()
                pos = self.pos
            else:
                self._add(char)
                pos += 1
        raise _ParseError("unterminated double quote")

    def _substitution(self, body_start: int) -> None:
        end = _closing_paren(self.text, body_start)
        if end == -1:
            raise _ParseError("unterminated $( or <(")
        self._record_substitution(self.text[body_start:end])
        self._add(self.text[self.pos : end + 1])
        self.pos = end + 1

    def _backtick(self) -> None:
        end = self.text.find("`", self.pos + 1)
        if end == -1:
            raise _ParseError("unterminated backtick")
        self._record_substitution(self.text[self.pos + 1 : end])
        self._add(self.text[self.pos : end + 1])
        self.pos = end + 1

    def _record_substitution(self, body: str) -> None:
        self.script.substitutions.append(parse_shell(body))

    def _operator(self, operator: str) -> None:
        if operator in REDIRECT_OPERATORS:
            if self.in_word and "".join(self.word).isdigit():
                self.word, self.in_word = [], False  # "2>" names a file descriptor, not an argument
            else:
                self._end_word()
            if self.pending_redirect is not None:
                raise _ParseError(f"{self.pending_redirect} has no target")
            self.pending_redirect = operator
            return
        self._end_word()
        if operator in GROUPING:
            self.script.grouping = True
        self._end_command(operator)

    def _add(self, piece: str) -> None:
        self.word.append(piece)
        self.in_word = True

    def _end_word(self) -> None:
        if not self.in_word:
            return
        word = "".join(self.word)
        self.word, self.in_word = [], False
        if self.pending_redirect is not None:
            self.current.redirects.append(Redirect(self.pending_redirect, word))
            self.pending_redirect = None
        else:
            self.current.words.append(word)

    def _end_command(self, operator: str | None) -> None:
        if self.pending_redirect is not None:
            raise _ParseError(f"{self.pending_redirect} has no target")
        if self.current.words or self.current.redirects:
            self.script.commands.append(self.current)
            self.current = SimpleCommand()
        if operator is not None and operator not in GROUPING:
            self.script.operators.append(operator)


class _ParseError(Exception):
    pass


def _closing_paren(text: str, start: int) -> int:
    """The index of the ``)`` that closes a ``(`` just before ``start``, skipping quoted text."""
    depth = 1
    pos = start
    while pos < len(text):
        char = text[pos]
        if char == "\\":
            pos += 2
            continue
        if char in "'\"":
            close = text.find(char, pos + 1)
            if close == -1:
                return -1
            pos = close + 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return pos
        pos += 1
    return -1
