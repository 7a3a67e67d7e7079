"""`python -m bench.frontmatter`: the one frontmatter reader, per header, on the plain path and through YAML.

Prints best-of-7 figures (microseconds per file) for a memory file, each bundled SKILL.md and a rule with
`paths:` globs, and whether the plain headers left yaml unimported. Printed only (not merged into
results.json): it is a check on app/context/frontmatter.py, not a headline figure.
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

from bench.common import ROOT, machine_load

MEMORY = "---\nname: DB tests\ndescription: Never mock the database\ntype: feedback\n---\n\nUse the real DB.\n"
RULE = '---\ndescription: API rules\npaths:\n  - "src/api/**/*.ts"\n  - tests/**\n---\nUse zod.\n'
NEEDS_YAML = "---\nname: a\ndescription: d\npriority: 5\nmetadata:\n  version: 1.0\n---\nbody\n"


def _best(call, number: int) -> float:  # type: ignore[no-untyped-def]
    return min(timeit.repeat(call, number=number, repeat=7)) / number * 1e6


def main() -> None:
    from app.context.frontmatter import read_frontmatter
    from app.context.memory.document import parse_memory_text
    from app.context.skills.model import SkillLevel
    from app.context.skills.parse import parse_skill_text

    skills = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "bundled_skills").glob("*/SKILL.md"))]
    print(machine_load())
    print(f"frontmatter.memory_file: {_best(lambda: parse_memory_text(MEMORY), 5000):.1f} us (parse_memory_text)")
    each = _best(lambda: [parse_skill_text(t, Path("/s/SKILL.md"), SkillLevel.USER) for t in skills], 500) / len(skills)
    print(f"frontmatter.bundled_skill: {each:.1f} us per SKILL.md ({len(skills)} files, parse_skill_text)")
    print(f"frontmatter.rule_header: {_best(lambda: read_frontmatter(RULE), 5000):.1f} us (read_frontmatter)")
    print(f"frontmatter.yaml_imported_by_plain_headers: {'yaml' in sys.modules}")
    print(f"frontmatter.header_through_yaml: {_best(lambda: read_frontmatter(NEEDS_YAML), 2000):.1f} us (read_frontmatter)")


if __name__ == "__main__":
    main()
