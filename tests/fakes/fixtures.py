"""Pytest fixtures for the fake OpenAI server (imported by the root conftest)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.openai_server import FakeOpenAIServer

_LOCAL_HOSTS = ("127.0.0.1", "localhost")


def _with_local_hosts(value: str | None) -> str:
    entries = [e.strip() for e in (value or "").split(",") if e.strip()]
    for host in _LOCAL_HOSTS:
        if host not in entries:
            entries.append(host)
    return ",".join(entries)


@pytest.fixture
def fake_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """A started :class:`FakeOpenAIServer`; stopped after the test.

    Proxy variables apply to 127.0.0.1 with the openai client, so NO_PROXY /
    no_proxy are extended with ``127.0.0.1,localhost`` for the test.
    """
    import os

    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(name, _with_local_hosts(os.environ.get(name)))
    server = FakeOpenAIServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
