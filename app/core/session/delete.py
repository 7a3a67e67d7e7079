"""Deleting a saved session: its record and the files kept next to it."""

from __future__ import annotations

from pathlib import Path

# Written next to the record by the /context report (app.context.report.report_path uses this).
CONTEXT_SIDECAR_SUFFIX = ".context.json"


def session_files_to_delete(record_path: Path) -> list[Path]:
    """The record and its sidecars that exist, record first."""
    sidecar = record_path.with_name(f"{record_path.stem}{CONTEXT_SIDECAR_SUFFIX}")
    return [path for path in (record_path, sidecar) if path.is_file()]


def delete_session(record_path: Path) -> list[Path]:
    """Remove the record and its sidecars; returns what was removed.

    The record goes first: if something fails after it, the session is gone from
    every list and only an orphaned sidecar is left, never the other way round.
    """
    removed: list[Path] = []
    for path in session_files_to_delete(record_path):
        try:
            path.unlink()
        except FileNotFoundError:
            continue  # removed meanwhile (another window): the goal is reached
        removed.append(path)
    return removed
