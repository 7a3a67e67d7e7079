"""The repository's executable git config, neutralised for every git the program runs on its own.

A repository's ``.git/config`` can name programs git runs on plain reads: ``core.fsmonitor``
on ``git status``, ``diff.external`` and ``diff.<driver>.command`` on ``git diff``,
``diff.<driver>.textconv`` on ``git log -p`` / ``show``, ``filter.<driver>.clean`` (via
``.gitattributes``) on ``status`` and ``diff``, ``gpg.program`` with ``log.showSignature``,
``core.pager`` / ``pager.<cmd>``, ``core.sshCommand``, ``core.askPass``, ``credential.helper``,
``core.hooksPath``, editors. The start-up snapshot and the read-only shell class run git with
no question, so they run it with these overrides.

How, as measured on git 2.39: ``GIT_CONFIG_COUNT`` / ``GIT_CONFIG_KEY_n`` / ``GIT_CONFIG_VALUE_n``
in the environment have command-line precedence and reach every git of a bash line, submodule
gits included. Most keys take a harmless value. Two cannot: an *empty* ``diff.external`` or
textconv makes git fail ("cannot run"), so textconv drivers get ``cat`` (the same text, no
program of the repository's) and the external diff is switched off by ``--no-ext-diff``, which
``subcommand_args`` adds for git's own calls and the ``git`` shim (``shim_dir``) adds for the
shell's. Driver names come from ``git config -z --get-regexp`` (reading config runs nothing).
Aliases cannot shadow git's own commands (git ignores ``alias.status``), and the read-only
table only holds git's own commands, so aliases need no override.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

# Subcommands the read-only class allows (app/core/tools/shell_readonly_table.GIT), paged never.
_PAGED = ("status", "log", "show", "diff", "blame", "ls-files", "ls-tree", "rev-parse", "grep", "shortlog",
          "describe", "cat-file", "branch", "tag", "remote", "config", "whatchanged", "reflog", "stash")  # fmt: skip
STATIC_OVERRIDES: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.hooksPath", os.devnull),
    ("core.sshCommand", "false"),
    ("core.askPass", "false"),
    ("core.editor", "false"),
    ("sequence.editor", "false"),
    ("credential.helper", ""),  # an empty value resets the list of helpers
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.x509.program", "false"),
    ("gpg.ssh.program", "false"),
    ("log.showSignature", "false"),
    ("diff.ignoreSubmodules", "all"),  # status and diff would run git in each submodule
    ("status.submoduleSummary", "false"),
    *((f"pager.{name}", "false") for name in _PAGED),
)
# Keys whose driver name is the repository's choice: (suffix, harmless value).
_DRIVER_KEYS = {"clean": "", "smudge": "", "process": "", "textconv": "cat", "required": "false"}
_DRIVERS_REGEXP = r"^(filter|diff)\..+\.(clean|smudge|process|textconv|required)$"
# git's own calls of these get --no-ext-diff: diff.external / diff.<driver>.command would run.
EXT_DIFF_SUBCOMMANDS = frozenset({"diff", "log", "show", "whatchanged"})


def config_overrides(cwd: Path, git: str = "git") -> list[tuple[str, str]]:
    """The (key, value) pairs that take every program out of git's config for a read in ``cwd``."""
    return [*STATIC_OVERRIDES, *_driver_overrides(str(cwd), git)]


def environment(base: Mapping[str, str], cwd: Path, git: str = "git") -> dict[str, str]:
    """``base`` with the overrides appended as ``GIT_CONFIG_*`` (after any already there) and no prompts."""
    env = dict(base)
    try:
        start = int(env.get("GIT_CONFIG_COUNT", "0") or "0")
    except ValueError:
        start = 0
    pairs = config_overrides(cwd, git)
    for offset, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{start + offset}"] = key
        env[f"GIT_CONFIG_VALUE_{start + offset}"] = value
    env["GIT_CONFIG_COUNT"] = str(start + len(pairs))
    env.update({"GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"})
    for variable in ("GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_EDITOR", "GIT_EXEC_PATH"):
        env.pop(variable, None)
    return env


def subcommand_args(args: tuple[str, ...] | list[str]) -> list[str]:
    """``args`` (a git subcommand and its arguments) with ``--no-ext-diff`` where git would run one."""
    out = list(args)
    if out and out[0] in EXT_DIFF_SUBCOMMANDS and "--no-ext-diff" not in out:
        out.insert(1, "--no-ext-diff")
    return out


def read_only_environment(base: Mapping[str, str], cwd: Path) -> dict[str, str]:
    """The environment for a read-only shell line: the overrides, and the ``git`` shim first on PATH."""
    real = shutil.which("git", path=base.get("PATH", os.defpath))
    if real is None:
        return dict(base)  # no git: nothing to guard
    env = environment(base, cwd, real)
    env["PATH"] = os.pathsep.join([str(shim_dir(real)), base.get("PATH", os.defpath)])
    return env


_SHIM = """#!/bin/sh
# agentctx git guard: the real git, with --no-ext-diff after diff/log/show (see app/core/tools/git_guard.py).
# The read-only class only lets value-less global options through, so the first other word is the subcommand.
count=$#
index=0
seen=0
while [ "$index" -lt "$count" ]; do
  word=$1
  shift
  set -- "$@" "$word"
  index=$((index + 1))
  if [ "$seen" = 0 ]; then
    case $word in
      -*) ;;
      diff|log|show|whatchanged) set -- "$@" --no-ext-diff; seen=1 ;;
      *) seen=1 ;;
    esac
  fi
done
exec {real} "$@"
"""


@lru_cache(maxsize=4)
def shim_dir(real_git: str) -> Path:
    """A private directory holding the ``git`` shim for ``real_git``, removed when the program exits."""
    directory = Path(tempfile.mkdtemp(prefix="agentctx-git-guard-"))
    atexit.register(shutil.rmtree, directory, True)
    script = directory / "git"
    script.write_text(_SHIM.replace("{real}", _sh_quote(real_git)), encoding="utf-8")
    script.chmod(0o700)
    return directory


def _sh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _driver_overrides(cwd: str, git: str) -> list[tuple[str, str]]:
    key = _config_stamp(cwd)
    return list(_cached_drivers(cwd, git, key))


def _config_stamp(cwd: str) -> tuple[int, int] | None:
    """What changes when the repository's config does (the cache is keyed on it)."""
    try:
        stat = os.stat(os.path.join(cwd, ".git", "config"))
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=32)
def _cached_drivers(cwd: str, git: str, _stamp: tuple[int, int] | None) -> tuple[tuple[str, str], ...]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        done = subprocess.run(
            [git, "-C", cwd, "config", "-z", "--get-regexp", _DRIVERS_REGEXP],
            stdin=subprocess.DEVNULL, capture_output=True, timeout=5, env=env, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return ()
    pairs: dict[str, str] = {}
    for entry in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        name = entry.split("\n", 1)[0]
        suffix = name.rsplit(".", 1)[-1].lower()
        if name and suffix in _DRIVER_KEYS:
            pairs[name] = _DRIVER_KEYS[suffix]
    return tuple(pairs.items())
