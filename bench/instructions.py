"""Instruction loading: discovery, reading, @import expansion, rules and the budget, end to end.

The tree is a 30-level-deep repository (seeded, in a temp dir): QWEN.md and
AGENTS.md at every level of the working directory's chain and of a second
chain passed as an include dir (100 instruction files with the two global
ones), 200 imports of 120 fragment files, Markdown with code spans and fences
holding ``@`` examples (so the code-region parser runs), and a few rules.

Two figures: a load with nothing remembered (the one that matters, the first
of a session) and a reload of unchanged files (parse results reused).
"""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from pathlib import Path

from app.context.instructions import load_instructions
from app.context.instructions.code_regions import clear_region_cache
from bench.common import median, report

DEPTH = 30
BRANCH_AT = 12
FRAGMENTS = 120
IMPORTS = 200
RUNS = 9
SEED = 20260819


def _prose(rng: random.Random, words: int) -> str:
    vocabulary = ["build", "test", "commit", "lint", "module", "parser", "budget", "import", "context", "rule", "cache"]
    return " ".join(rng.choice(vocabulary) for _ in range(words))


def _instruction_text(rng: random.Random, title: str, imports: list[str]) -> str:
    lines = [f"# {title}", "", _prose(rng, 60), ""]
    lines += [f"- Run `make test` before you push; mail me@example.com about {_prose(rng, 4)}" for _ in range(3)]
    lines += ["", "```sh", "echo @./not-an-import.md", "```", ""]
    lines += [f"See @{path} for details." for path in imports]
    lines += ["", "## Notes", "", _prose(rng, 80), "", "Inline `@./docs/example.md` stays literal.", ""]
    return "\n".join(lines)


def build_tree(root: Path, rng: random.Random) -> tuple[Path, Path, Path, list[Path]]:
    """(cwd, global dir, home, include dirs) for a fresh tree under ``root``."""
    home = root / "home"
    global_dir = root / "config"
    repo = home / "work" / "repo"
    (repo / ".git").mkdir(parents=True)
    global_dir.mkdir()
    docs = repo / "docs"
    docs.mkdir()
    for index in range(FRAGMENTS):
        (docs / f"frag-{index:03}.md").write_text(f"## Fragment {index}\n\n{_prose(rng, 40)}\n", encoding="utf-8")

    chain = [repo]
    for level in range(1, DEPTH + 1):
        chain.append(chain[-1] / f"l{level:02}")
    branch = [chain[BRANCH_AT]]
    for level in range(BRANCH_AT + 1, DEPTH + 1):
        branch.append(branch[-1] / f"b{level:02}")
    directories = list(dict.fromkeys(chain + branch))
    for directory in directories:
        directory.mkdir(parents=True, exist_ok=True)

    targets = [(d, name) for d in directories for name in ("QWEN.md", "AGENTS.md")]
    counts = [IMPORTS // len(targets)] * len(targets)
    for extra in rng.sample(range(len(targets)), IMPORTS - sum(counts)):
        counts[extra] += 1
    for (directory, name), count in zip(targets, counts, strict=True):
        up = "/".join([".."] * (len(directory.relative_to(repo).parts)))
        imports = [f"{up + '/' if up else './'}docs/frag-{rng.randrange(FRAGMENTS):03}.md" for _ in range(count)]
        (directory / name).write_text(_instruction_text(rng, f"{name} in {directory.name}", imports), encoding="utf-8")
    for name in ("QWEN.md", "AGENTS.md"):
        (global_dir / name).write_text(_instruction_text(rng, f"global {name}", []), encoding="utf-8")

    rules = repo / ".qwen" / "rules"
    rules.mkdir(parents=True)
    (rules / "style.md").write_text("Use four spaces.\n", encoding="utf-8")
    (rules / "frontend.md").write_text("---\npaths:\n  - 'web/**/*.ts'\n---\nPrefer hooks.\n", encoding="utf-8")
    return chain[-1], global_dir, home, [branch[-1]]


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="agentctx-bench-instructions-"))
    try:
        cwd, global_dir, home, include = build_tree(root, random.Random(SEED))

        def load(*, cold: bool) -> float:
            if cold:  # the first load of a session: no parse results remembered yet
                clear_region_cache()
            started = time.perf_counter()
            result = load_instructions(cwd, global_dir=global_dir, home=home, include_dirs=include)
            elapsed = time.perf_counter() - started
            assert len(result.files) == 100, len(result.files)
            return elapsed

        load(cold=True)  # warm-up: module imports, the markdown parser, the OS page cache
        cold = [load(cold=True) for _ in range(RUNS)]
        warm = [load(cold=False) for _ in range(RUNS)]
        report("instructions.discovery_and_imports", median(cold) * 1000, "ms", files=100, imports=IMPORTS, depth=DEPTH)
        report("instructions.reload_unchanged", median(warm) * 1000, "ms", files=100, imports=IMPORTS, depth=DEPTH)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
