"""What a bash command line runs, read with the real bash grammar (tree-sitter-bash).

Permission rules and the read-only shell need the simple commands inside
``a && b | c``, their argv after quote removal, their redirections, and what
hides in ``$(...)``. The line is parsed by tree-sitter-bash, the grammar editors
and Claude Code use, and the tree is turned into a small model. Anything the
model cannot follow exactly is reported in ``ShellScript.error`` ("unanalysable":
callers never allow it on a rule) and, when it hides which program runs, in
``ShellScript.unknown_program`` (callers count it as matching every deny rule):

- ANSI-C ``$'...'`` and locale ``$"..."`` quoting (bash decodes them, the rules
  would see the raw text: ``git status $'\\x3b' rm`` is the classic);
- an expansion, glob or brace expansion in command position (``$(echo rm) x``,
  ``"$cmd" x``, ``${X}``, ``r*m``), a function definition, arithmetic,
  ``>(...)`` process substitution (the outer program writes into a command),
  a line continuation inside a word (bash joins ``r\\<newline>m``, the grammar
  splits it), a carriage return, and any node type not handled here
  (ERROR nodes included).

Expansions in argument position are fine for rules: they cannot start a new
command, so a word holding one is marked ``dynamic`` (its value is known only
when it runs) and callers decide what that means for them.

Costs, measured on this machine (2 cores shared with other work, load average
10-12) by ``python -m bench.shell`` and a ``perf_counter`` loop over its corpus:
importing tree_sitter + tree_sitter_bash and building the parser takes 35-45 ms
in-process (90-130 ms in a fresh interpreter under that load, most of it the
``importlib.resources`` that tree_sitter_bash imports), paid once, on the first
command judged — so both are imported here lazily, never at start-up; parsing a
typical one-line command takes about 0.03 ms in tree-sitter and 0.1-0.3 ms with
this model built from the tree.

The hand-made tokenizer this replaces was deleted: the grammar covers all it
did (quotes, operators, redirections, substitutions, comments, env prefixes)
and the constructs it could not see (``$'\\''`` opened a quote for it that bash
closes, hiding a second command).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import field
from app.dataclass import dataclass
from functools import lru_cache
from typing import Any

from app.core.tools.shell_syntax_checks import evaluating_expansion, split_by_continuation, unseen_substitution

# Unquoted characters that make bash expand a word into file names.
_GLOB_CHARS = re.compile(r"[*?\[]")
_BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_ARITH_TEST_OPERATORS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
# Statement nodes whose children are statements (their own words are checked for substitutions).
_COMPOUND = frozenset(
    {"if_statement", "elif_clause", "else_clause", "while_statement", "for_statement", "do_group",
     "case_statement", "case_item", "compound_statement", "subshell", "negated_command"}
)  # fmt: skip
_STATEMENTS = frozenset(
    {"command", "pipeline", "list", "redirected_statement", "variable_assignment", "variable_assignments",
     "declaration_command", "unset_command", "test_command", "comment"} | _COMPOUND
)  # fmt: skip
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})


@dataclass
class Word:
    """One shell word after quote removal.

    ``dynamic``: holds an expansion (``$x``, ``$(...)``, ``~``), so bash's value is not
    this text; ``glob``: unquoted ``*``, ``?``, ``[`` or a brace expansion, so bash may
    turn it into several words (file names). ``text`` keeps the source of those parts.
    """

    text: str
    dynamic: bool = False
    glob: bool = False

    @property
    def known(self) -> bool:
        return not (self.dynamic or self.glob)


@dataclass
class Redirect:
    """One redirection of a simple command (``2>/dev/null``, ``>out.txt``, a heredoc)."""

    operator: str
    target: str
    fd: str | None = None
    word: Word | None = None  # None for heredocs


@dataclass
class SimpleCommand:
    """One program invocation: ``FOO=1 grep -n x file 2>/dev/null``."""

    argv_words: list[Word] = field(default_factory=list)
    assignment_words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)

    @property
    def assignments(self) -> list[str]:
        """Leading ``NAME=value`` words, which set the environment of the program."""
        return [w.text for w in self.assignment_words]

    @property
    def argv(self) -> list[str]:
        """The program and its arguments, without leading assignments."""
        return [w.text for w in self.argv_words]

    @property
    def words(self) -> list[str]:
        return self.assignments + self.argv

    @property
    def program(self) -> str:
        return self.argv_words[0].text if self.argv_words else ""

    @property
    def text(self) -> str:
        """The words joined by spaces (quotes removed), what permission rules match."""
        return " ".join(self.words)


@dataclass
class ShellScript:
    """A parsed command line: its simple commands and the scripts inside ``$(...)``, or why it cannot be analysed."""

    commands: list[SimpleCommand] = field(default_factory=list)
    operators: list[str] = field(default_factory=list)
    substitutions: list[ShellScript] = field(default_factory=list)
    grouping: bool = False  # subshells, { ...; }, loops and conditionals
    error: str | None = None  # why the line cannot be fully analysed (the first reason)
    unknown_program: bool = False  # some program's name is known only when it runs

    def all_commands(self) -> Iterator[SimpleCommand]:
        """Every simple command, including those inside substitutions."""
        yield from self.commands
        for inner in self.substitutions:
            yield from inner.all_commands()

    @property
    def ok(self) -> bool:
        return self.error is None and all(inner.ok for inner in self.substitutions)

    @property
    def hides_program(self) -> bool:
        return self.unknown_program or any(inner.hides_program for inner in self.substitutions)

    @property
    def first_error(self) -> str | None:
        if self.error is not None:
            return self.error
        return next((inner.first_error for inner in self.substitutions if not inner.ok), None)


def parse_shell(command: str) -> ShellScript:
    script = ShellScript()
    if "\r" in command or "\x00" in command:
        script.error = "it holds a carriage return or NUL byte, which bash and the grammar read differently"
        script.unknown_program = True
        return script
    source = command.encode("utf-8", "surrogatepass")
    tree = _parser().parse(_ascii_shape(source))
    followed: set[int] = set()
    try:
        _Builder(source, script, followed).statements(tree.root_node)
    except RecursionError:
        # Thousands of nested $( or && deep: no person writes that; refuse to guess.
        return ShellScript(error="it is nested too deeply to analyse", unknown_program=True)
    if tree.root_node.has_error:
        # What bash runs of a line it rejects part of is anyone's guess: it hides the program too.
        script.error = script.error or "bash would not accept it as written (a syntax error)"
        script.unknown_program = True
    if split_by_continuation(command, source, tree.root_node):
        script.error = script.error or "a line continuation inside a word (bash joins the pieces, the grammar does not)"
        script.unknown_program = True
    at = unseen_substitution(source, tree.root_node, followed)
    if at is not None:
        script.error = script.error or f"it holds a command substitution at byte {at} that the grammar does not show"
        script.unknown_program = True
    return script


def _grammar_split(previous: Any, node: Any, source: bytes) -> bool:
    """Two words the grammar gives with nothing between them, after a quote or before a backslash
    (``''\\p1``, ``""\\p1``, ``''\\ p1``): bash joins them into one word the grammar never saw."""
    gap = source[previous.end_byte : node.start_byte]
    if gap not in (b"", b"\\ ", b"\\\t"):
        return False
    last = previous
    while last.children:
        last = last.children[-1]
    quoted = last.type in ("raw_string", "string", "ansi_c_string", "'", '"')
    return quoted or source[node.start_byte : node.start_byte + 1] == b"\\" or gap != b""


# Every byte of a multi-byte character, for the grammar only.
_NON_ASCII = re.compile(rb"[\x80-\xff]")


def _ascii_shape(source: bytes) -> bytes:
    """The line as the grammar is given it: each non-ASCII byte becomes ``a``, same length, same offsets.

    tree-sitter-bash 0.25.1 crashes the process (a segmentation fault, found by fuzzing) on some
    characters outside the Basic Multilingual Plane after ``{`` (U+F8481, U+100000). bash gives no
    non-ASCII character a meaning of its own (every metacharacter is ASCII), so the shape of the line is
    the same; the words are still read from the real bytes. Where the mapping joins two different
    characters (a heredoc delimiter), the grammar can only end the heredoc earlier than bash, which
    shows it more commands, never fewer.
    """
    return _NON_ASCII.sub(b"a", source) if not source.isascii() else source


@lru_cache(maxsize=1)
def _parser() -> Any:
    # Imported here: 35 ms that an app start-up without a shell command never pays.
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


class _Builder:
    def __init__(self, source: bytes, script: ShellScript, followed: set[int]) -> None:
        self.source = source
        self.script = script
        self.followed = followed  # where each substitution followed starts (and a backtick one ends)

    # -- statements ---------------------------------------------------------------------------------

    def fail(self, reason: str, *, hides_program: bool = True) -> None:
        """Unanalysable. By default it hides the program too: the part not followed may run anything."""
        if self.script.error is None:
            self.script.error = reason
        if hides_program:
            self.script.unknown_program = True

    def statements(self, node: Any) -> None:
        for child in node.children:
            self.statement_or_token(child)

    def statement_or_token(self, node: Any) -> None:
        if not node.is_named:
            if node.type in ("&&", "||", "|", "|&", ";", "&", ";;", "\n"):
                self.script.operators.append(node.type)
            elif node.type in ("(", ")", "{", "}", "!", "do", "done", "then", "fi", "if", "elif", "else",
                               "while", "until", "for", "in", "case", "esac", ")"):  # fmt: skip
                pass
            else:
                self.fail(f"it holds {node.type!r}, which is not analysed")
            return
        self.statement(node)

    def statement(self, node: Any) -> None:
        kind = node.type
        if kind == "comment":
            return
        if kind == "command":
            self.command(node)
        elif kind in ("pipeline", "list"):
            self.statements(node)
        elif kind == "redirected_statement":
            self.redirected(node)
        elif kind in ("variable_assignment", "variable_assignments"):
            simple = SimpleCommand()
            for child in node.named_children if kind == "variable_assignments" else [node]:
                simple.assignment_words.append(self.assignment(child))
            self.script.commands.append(simple)
        elif kind == "declaration_command":
            self.declaration(node)
        elif kind == "unset_command":
            words = [Word(node.children[0].type)] + [self.word(c) for c in node.named_children]
            self.script.commands.append(SimpleCommand(argv_words=words))
        elif kind == "test_command":
            self.test_command(node)
        elif kind in _COMPOUND:
            self.compound(node)
        elif kind == "function_definition":
            self.fail("it defines a function, which can give any later name a new meaning", hides_program=True)
        elif kind == "ERROR" or node.is_missing:
            self.fail("bash would not accept it as written (a syntax error)", hides_program=True)
        else:
            self.fail(f"it holds a {kind.replace('_', ' ')}, which is not analysed")

    def compound(self, node: Any) -> None:
        self.script.grouping = True
        if node.type == "compound_statement" and node.children and node.children[0].type == "((":
            self.fail("it holds arithmetic (( ... )), which is not analysed")
            return
        for child in node.children:
            if child.is_named and child.type not in _STATEMENTS and child.type not in _REDIRECTS:
                # for NAME in WORDS / case WORD in PATTERN): words, checked for what they run.
                if child.type == "variable_name":
                    continue
                self.word(child)
            elif child.is_named and child.type in _REDIRECTS:
                self.fail("a redirection inside a compound command is not analysed")
            else:
                self.statement_or_token(child)

    def redirected(self, node: Any) -> None:
        body = node.child_by_field_name("body")
        redirects: list[Redirect] = []
        trailing: list[Any] = []
        for child in node.named_children:
            if child.type in _REDIRECTS:
                redirects.append(self.redirect(child, trailing))
        if body is None:
            simple = SimpleCommand(redirects=redirects)  # "> file" alone truncates it
            self.script.commands.append(simple)
        elif body.type == "command":
            self.command(body, redirects)
        else:
            self.statement(body)
            if body.type in _COMPOUND or body.type in ("pipeline", "list"):
                # A redirection of a whole group applies to every command in it.
                self.script.commands.append(SimpleCommand(redirects=redirects))
            elif self.script.commands:
                self.script.commands[-1].redirects.extend(redirects)
            else:
                self.script.commands.append(SimpleCommand(redirects=redirects))
        for extra in trailing:  # "cat <<EOF | sh": the grammar hangs the pipe off the heredoc
            self.statement_or_token(extra)

    def command(self, node: Any, redirects: list[Redirect] | None = None) -> None:
        simple = SimpleCommand(redirects=list(redirects or []))
        trailing: list[Any] = []
        previous: Any = None  # the previous word of this command
        for child in node.children:
            field_name = _field(node, child)
            is_word = child.type == "command_name" or (child.type not in _REDIRECTS and child.type != "variable_assignment" and (field_name == "argument" or child.is_named))
            if is_word:
                if previous is not None and _grammar_split(previous, child, self.source):
                    # No space between them, so bash reads one word (''\p1 runs p1); the grammar read two.
                    self.fail("it holds a word the grammar splits in two where bash reads one", hides_program=True)
                previous = child
            if child.type == "variable_assignment":
                simple.assignment_words.append(self.assignment(child))
            elif child.type == "command_name":
                name = child.named_children[0] if child.named_children else child
                word = self.word(name)
                if not word.known:
                    self.fail(f"the program name {word.text!r} is known only when it runs", hides_program=True)
                simple.argv_words.append(word)
            elif child.type in _REDIRECTS:
                simple.redirects.append(self.redirect(child, trailing))
            elif not child.is_named and child.type == "$":
                self.fail("it uses $\"...\" locale quoting, which bash translates before running", hides_program=False)
            elif field_name == "argument" or child.is_named:
                simple.argv_words.append(self.word(child))
            else:
                self.fail(f"it holds {child.type!r}, which is not analysed")
        self.script.commands.append(simple)
        for extra in trailing:
            self.statement_or_token(extra)

    def declaration(self, node: Any) -> None:
        words = [Word(node.children[0].type)]
        for child in node.named_children:
            words.append(self.assignment(child) if child.type == "variable_assignment" else self.word(child))
        self.script.commands.append(SimpleCommand(argv_words=words))

    def test_command(self, node: Any) -> None:
        opener = node.children[0].type
        words = [Word(opener)]
        for leaf in _leaves(node.children[1:-1]):
            if opener == "[[" and leaf.type == "test_operator" and self.text(leaf) in _ARITH_TEST_OPERATORS:
                # [[ a -eq b ]] evaluates a and b as arithmetic, which can run commands through a variable.
                self.fail("[[ ... ]] with an arithmetic comparison is not analysed")
        for child in node.children[1:-1]:
            words.extend(self.test_words(child))
        words.append(Word(node.children[-1].type))
        self.script.commands.append(SimpleCommand(argv_words=words))

    def test_words(self, node: Any) -> list[Word]:
        if node.type in ("unary_expression", "binary_expression", "parenthesized_expression", "negated_expression"):
            out: list[Word] = []
            for child in node.children:
                out.extend(self.test_words(child))
            return out
        if node.type == "test_operator" or not node.is_named:
            return [Word(self.text(node))]
        if node.type == "regex":
            return [Word(self.text(node))]
        return [self.word(node)]

    def assignment(self, node: Any) -> Word:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None or name.type != "variable_name":
            self.fail("an assignment to an array element or unusual name is not analysed")
        if value is not None and value.type == "array":
            parts = [self.word(v) for v in value.named_children]
            text = "(" + " ".join(p.text for p in parts) + ")"
            dynamic = any(p.dynamic for p in parts)
        elif value is not None:
            word = self.word(value)
            text, dynamic = word.text, word.dynamic
        else:
            text, dynamic = "", False
        operator = "+=" if any(c.type == "+=" for c in node.children) else "="
        return Word(f"{self.text(name) if name is not None else '?'}{operator}{text}", dynamic=dynamic)

    # -- redirections ---------------------------------------------------------------------------------

    def redirect(self, node: Any, trailing: list[Any]) -> Redirect:
        fd: str | None = None
        operator = ""
        target: Word | None = None
        for child in node.children:
            if child.type == "file_descriptor":
                fd = self.text(child)
            elif not child.is_named:
                operator = operator or child.type
            elif child.type == "heredoc_start":
                continue
            elif child.type == "heredoc_body":
                self.heredoc_body(child)
            elif child.type == "heredoc_end":
                continue
            elif node.type == "heredoc_redirect" and child.type in _STATEMENTS:
                trailing.append(child)
            elif target is None:
                target = self.word(child)
            else:
                self.fail("a redirection with more than one target is not analysed")
        if node.type == "heredoc_redirect":
            # The operator tokens that follow "<<" (a pipe, &&) come back as statements' operators.
            for child in node.children:
                if not child.is_named and child.type not in ("<<", "<<-"):
                    trailing.append(child)
            return Redirect(operator or "<<", "", fd, None)
        if target is None and operator in (">&-", "<&-"):
            return Redirect(operator[:2], "-", fd, None)  # closes a descriptor: writes nothing
        if target is None:
            self.fail(f"the redirection {operator} has no target")
            return Redirect(operator, "", fd, None)
        return Redirect(operator, target.text, fd, target)

    def heredoc_body(self, node: Any) -> None:
        for child in node.named_children:
            if child.type == "heredoc_content":
                continue
            self.word(child)  # $(...) in an unquoted heredoc body runs; record it

    # -- words ----------------------------------------------------------------------------------------

    def text(self, node: Any) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "surrogatepass")

    def word(self, node: Any) -> Word:
        kind = node.type
        if kind in ("word", "number"):
            raw = self.text(node)
            glob = bool(_GLOB_CHARS.search(_unquoted_specials(raw)))
            return Word(_unescape(raw), dynamic=raw.startswith("~"), glob=glob)
        if kind == "raw_string":
            return Word(self.text(node)[1:-1])
        if kind == "string":
            return self.double_quoted(node)
        if kind == "concatenation":
            parts = [self.word(c) for c in node.children]
            text = "".join(p.text for p in parts)
            brace = bool(_BRACE.search("".join(self.text(c) for c in node.children if c.type == "word")))
            return Word(text, dynamic=any(p.dynamic for p in parts), glob=brace or any(p.glob for p in parts))
        if kind in ("simple_expansion", "expansion"):
            evaluating = evaluating_expansion(self.text(node)) if kind == "expansion" else None
            if evaluating:
                self.fail(evaluating)
            self.inner_words(node)
            return Word(self.text(node), dynamic=True)
        if kind == "command_substitution":
            if self.text(node).startswith("`") and "\\" in self.text(node):
                # Inside backticks bash undoes \` \$ \\ first, so `a \`b\`` runs b too; the grammar does not.
                self.fail("a backslash inside `...` (bash reads it again, nesting commands the grammar does not see)")
            self.followed.update((node.start_byte, node.end_byte - 1))
            self.substitution(node)
            return Word(self.text(node), dynamic=True)
        if kind == "process_substitution":
            if node.children[0].type == ">(":
                self.fail("a >(...) process substitution runs a command the program writes into", hides_program=False)
            self.substitution(node)
            return Word(self.text(node), dynamic=True)
        if kind == "brace_expression":
            return Word(self.text(node), glob=True)
        if kind == "ansi_c_string":
            self.fail("it uses $'...' quoting, which bash decodes before running (the rules would see other text)", hides_program=False)
            return Word(self.text(node), dynamic=True)
        if kind == "translated_string":
            self.fail("it uses $\"...\" locale quoting, which bash translates before running", hides_program=False)
            return Word(self.text(node), dynamic=True)
        if kind == "arithmetic_expansion":
            self.fail("it holds arithmetic $(( ... )), which is not analysed")
            return Word(self.text(node), dynamic=True)
        if kind == "ERROR":
            self.fail("bash would not accept it as written (a syntax error)")
            return Word(self.text(node), dynamic=True)
        if not node.is_named and kind == "$":
            self.fail("it uses $\"...\" locale quoting, which bash translates before running", hides_program=False)
            return Word("$", dynamic=True)
        self.fail(f"it holds a {kind.replace('_', ' ')} in a word, which is not analysed")
        return Word(self.text(node), dynamic=True)

    def inner_words(self, node: Any) -> None:
        """Inside ``${x:-$(rm)}``: substitutions that run, and anything unusual."""
        for child in node.named_children:
            if child.type in ("variable_name", "special_variable_name", "regex"):
                continue
            if child.type in ("word", "string", "raw_string", "concatenation", "simple_expansion", "expansion",
                              "command_substitution", "process_substitution", "arithmetic_expansion",
                              "ansi_c_string", "number", "subscript"):  # fmt: skip
                if child.type == "subscript":
                    self.inner_words(child)
                else:
                    self.word(child)
            else:
                self.fail(f"it holds a {child.type.replace('_', ' ')} in an expansion, which is not analysed")

    def double_quoted(self, node: Any) -> Word:
        parts: list[str] = []
        dynamic = False
        children = node.children
        position = node.start_byte + 1
        for child in children[1:-1]:
            # Text between named children (the grammar leaves some of it outside string_content).
            if child.start_byte > position:
                parts.append(_unescape_double(self.source[position : child.start_byte].decode("utf-8", "surrogatepass")))
            if child.type == "string_content":
                parts.append(_unescape_double(self.text(child)))
            elif child.is_named:
                inner = self.word(child)
                parts.append(inner.text)
                dynamic = dynamic or inner.dynamic or child.type in ("simple_expansion", "expansion")
            else:
                parts.append(self.text(child))
                if child.type == "$":
                    pass  # a lone "$" before the closing quote is a literal dollar
            position = child.end_byte
        end = children[-1].start_byte if len(children) > 1 else node.end_byte
        if end > position:
            parts.append(_unescape_double(self.source[position:end].decode("utf-8", "surrogatepass")))
        return Word("".join(parts), dynamic=dynamic)

    def substitution(self, node: Any) -> None:
        inner = ShellScript()
        builder = _Builder(self.source, inner, self.followed)
        for child in node.children:
            if child.is_named:
                builder.statement(child)
            elif child.type not in ("$(", "`", ")", "<(", ">("):
                builder.statement_or_token(child)
        self.script.substitutions.append(inner)


def _field(node: Any, child: Any) -> str | None:
    for index, candidate in enumerate(node.children):
        if candidate.id == child.id:
            return node.field_name_for_child(index)
    return None


def _leaves(nodes: list[Any]) -> Iterator[Any]:
    for node in nodes:
        if node.child_count == 0:
            yield node
        else:
            yield from _leaves(node.children)


def _unescape(raw: str) -> str:
    """Quote removal for an unquoted word: ``\\x`` is ``x``."""
    return re.sub(r"\\(.)", r"\1", raw, flags=re.DOTALL)


def _unescape_double(raw: str) -> str:
    """Inside double quotes only ``\\$ \\` \\" \\\\`` and a line continuation lose their backslash."""
    return re.sub(r"\\([$`\"\\\n])", lambda m: "" if m.group(1) == "\n" else m.group(1), raw)


def _unquoted_specials(raw: str) -> str:
    """The word with escaped characters removed, so ``\\*`` is not a glob."""
    return re.sub(r"\\.", "", raw, flags=re.DOTALL)
