"""Random identifiers, written without importing uuid: the same form uuid writes."""

from __future__ import annotations

import re
import uuid

from app.core.ids import random_hex, uuid4


def test_a_uuid4_is_what_uuid_reads_as_version_4_of_the_rfc_4122_variant() -> None:
    seen = set()
    for _ in range(500):
        text = uuid4()
        parsed = uuid.UUID(text)
        assert str(parsed) == text
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122
        seen.add(text)
    assert len(seen) == 500


def test_random_hex_has_the_length_asked_for() -> None:
    for length in (1, 12, 32):
        text = random_hex(length)
        assert re.fullmatch(rf"[0-9a-f]{{{length}}}", text)
    assert random_hex(12) != random_hex(12)
