"""Project hooks follow folder trust (:mod:`app.trust`): one answer per folder for the whole project layer."""

from __future__ import annotations

from app.trust import TRUST_FILE, FolderTrust

__all__ = ["TRUST_FILE", "FolderTrust"]
