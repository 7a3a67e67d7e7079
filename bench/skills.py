"""Skills: discovery of 500 skills and the per-tool-call cost of path activation.

The tree (seeded, in a temp dir) spreads 500 skills over the project and user
levels, some with a name present at both (shadowing), a fifth of them
conditional, plus the bundled ones. Two figures: one full discovery (median),
and one activation check for a tool call touching two paths against 100
conditional skills, none of which matches (the common case, and the slowest:
every waiting skill is tested).
"""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from pathlib import Path

from app.context.skills import SkillActivator, discover_skills
from app.context.skills.model import Skill, SkillLevel
from bench.common import median, report

SKILLS = 500
CONDITIONAL = 100
RUNS = 9
CALLS = 2_000
SEED = 20260819
WORDS = ["review", "deploy", "schema", "api", "lint", "test", "docs", "release", "cache", "parser", "infra", "web"]
GLOBS = ["src/{w}/**/*.ts", "**/*.{w}", "{w}/**", "packages/*/{w}/*.py", ".{w}rc*", "docs/{w}/**/*.md"]


def _skill_text(rng: random.Random, name: str, conditional: bool) -> str:
    description = " ".join(rng.choice(WORDS) for _ in range(14))
    lines = [
        "---",
        f"name: {name}",
        f"description: {description}",
        f"when_to_use: When {rng.choice(WORDS)} work comes up.",
    ]
    if conditional:
        lines += ["paths:"] + [
            f"  - '{rng.choice(GLOBS).format(w=rng.choice(WORDS))}'" for _ in range(rng.randint(1, 3))
        ]
    if rng.random() < 0.3:
        lines += ["allowedTools:", "  - read_file", "  - run_shell_command(git diff *)"]
    lines += ["---", "", f"# {name}", "", " ".join(rng.choice(WORDS) for _ in range(300)), ""]
    return "\n".join(lines)


def build_tree(base: Path, rng: random.Random) -> tuple[Path, Path, Path]:
    home, config, root = base / "home", base / "config", base / "home" / "work" / "repo"
    levels = [root / ".qwen" / "skills", root / ".agents" / "skills", config / "skills", home / ".agents" / "skills"]
    for index in range(SKILLS):
        name = f"skill-{index % 450:03}"  # the last 50 repeat earlier names at other levels
        folder = levels[index % len(levels)] / f"{name}-{index}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(_skill_text(rng, name, rng.random() < 0.2), encoding="utf-8")
    return root, config, home


def _conditional_skills(rng: random.Random) -> list[Skill]:
    skills = []
    for index in range(CONDITIONAL):
        patterns = tuple(rng.choice(GLOBS).format(w=rng.choice(WORDS)) for _ in range(rng.randint(1, 3)))
        skills.append(Skill(f"cond-{index}", "d", SkillLevel.PROJECT, Path(f"/s/{index}/SKILL.md"), paths=patterns))
    return skills


def bench_discovery(rng: random.Random) -> None:
    base = Path(tempfile.mkdtemp(prefix="agentctx-bench-skills-"))
    try:
        root, config, home = build_tree(base, rng)

        def run() -> float:
            started = time.perf_counter()
            found = discover_skills(root, config, home)
            elapsed = time.perf_counter() - started
            assert len(found.skills) >= 450 and not found.problems, (len(found.skills), found.problems[:1])
            return elapsed

        run()  # warm-up: imports and the OS page cache
        report("skills.discovery_500", median([run() for _ in range(RUNS)]) * 1000, "ms", skills=SKILLS)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def bench_activation(rng: random.Random) -> None:
    root = Path("/bench/repo")
    activator = SkillActivator(root, _conditional_skills(rng))
    calls = [[f"lib/module_{i}/file_{i}.c", str(root / "vendor" / f"pkg{i}" / "main.c")] for i in range(CALLS)]
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        for paths in calls:
            activator.observe_paths(paths)
        samples.append((time.perf_counter() - started) / CALLS)
    assert not activator.activated
    report(
        "skills.activation_per_tool_call",
        median(samples) * 1_000_000,
        "us",
        conditional_skills=CONDITIONAL,
        paths_per_call=2,
    )


def main() -> None:
    rng = random.Random(SEED)
    bench_discovery(rng)
    bench_activation(rng)


if __name__ == "__main__":
    main()
