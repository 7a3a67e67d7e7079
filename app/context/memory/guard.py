"""The check before a write into team memory: no credentials in committed files."""

from __future__ import annotations

from pathlib import Path

from app.context.memory.paths import is_team_auto_mem_path
from app.context.memory.secrets import SecretFinding, describe_findings, scan


class SecretsInTeamMemoryError(Exception):
    """A write into team memory was refused because the text holds credentials."""

    def __init__(self, path: Path | str, findings: list[SecretFinding]) -> None:
        self.path = Path(path)
        self.findings = findings
        super().__init__(
            f"refused to write {self.path}: team memory is committed to git and the text looks like it holds "
            f"a secret ({describe_findings(findings)}); remove it and try again"
        )


def check_team_memory_secrets(team_root: Path | str, path: Path | str, content: str) -> list[SecretFinding]:
    """The secrets in ``content`` when ``path`` lands in team memory; [] for any other path.

    The path test comes first because it is cheap and most writes are not to team memory.
    """
    if not is_team_auto_mem_path(team_root, path):
        return []
    return scan(content)
