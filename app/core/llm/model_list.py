"""The models an OpenAI-compatible endpoint offers (``GET <base_url>/models``), for ``/model``.

One short request, made only when the person asks for the list; every failure is
worded with the endpoint and what to do, never raised as an exception the TUI would
have to translate.
"""

from __future__ import annotations

from dataclasses import field
from app.dataclass import dataclass

from app import __version__

# The list is asked for while the person waits in front of the picker.
LIST_TIMEOUT_SECONDS = 10.0


@dataclass
class ModelList:
    """The models the endpoint offers, or a sentence saying why they could not be listed."""

    models: list[str] = field(default_factory=list)
    problem: str = ""


async def list_models(base_url: str, api_key: str = "", *, timeout: float = LIST_TIMEOUT_SECONDS) -> ModelList:
    import httpx2

    url = f"{base_url.rstrip('/')}/models"
    headers = {"Accept": "application/json", "User-Agent": f"agentctx-tui/{__version__}"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    try:
        async with httpx2.AsyncClient(timeout=timeout) as client:
            response = await client.get(url, headers=headers)
    except Exception as exc:  # every transport failure is one sentence for the person
        return ModelList(problem=f"Could not list the models of {url}: {type(exc).__name__}: {exc}. Check model.base_url, or type /model NAME.")
    if response.status_code != 200:
        return ModelList(problem=f"{url} answered HTTP {response.status_code} to the model list; type /model NAME to switch by name.")
    try:
        data = response.json()
        entries = data["data"] if isinstance(data, dict) else data
        names = [str(entry["id"]) for entry in entries if isinstance(entry, dict) and entry.get("id")]
    except (ValueError, KeyError, TypeError):
        return ModelList(problem=f"{url} did not answer with an OpenAI model list; type /model NAME to switch by name.")
    return ModelList(models=sorted(set(names)))
