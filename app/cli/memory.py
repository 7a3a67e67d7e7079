"""`agentctx-tui memory list|show|status|recall|forget|index|scan`: auto-memory without the TUI.

Reading commands never change a file; ``forget`` only previews unless given ``--yes``;
``scan`` names the secret rules that fire and never the text that matched.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.exit_codes import EXIT_USAGE

if TYPE_CHECKING:
    from app.config import Settings
    from app.context.memory import MemoryEntry, MemoryPaths, MemoryStore
    from app.core.llm.provider import Provider
    from app.paths import Paths

EXIT_OK, EXIT_FOUND = 0, 1


def run(args: argparse.Namespace) -> int:
    from app.paths import Paths

    if args.cwd is not None and not args.cwd.is_dir():
        return _fail(f"--cwd {args.cwd} is not a directory")
    handler = {
        "list": _list,
        "show": _show,
        "status": _status,
        "recall": _recall,
        "forget": _forget,
        "index": _index,
        "scan": _scan,
    }[args.action]
    return handler(args, Paths.for_cwd(args.cwd))


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "memory", help="the memories kept across sessions: list, show, status, recall, forget, index, scan", description="The memories kept across sessions (project, user and team scopes)."
    )
    parser.set_defaults(run=run)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-C", "--cwd", type=Path, help="the project directory (default: the current one)")
    sub = parser.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", parents=[common], help="every memory file, with its problems")
    listing.add_argument("--json", action="store_true")
    show = sub.add_parser("show", parents=[common], help="print one memory file")
    show.add_argument("target", metavar="PATH_OR_NAME", help="a path, a path relative to its scope, a file name or a memory's name")
    status = sub.add_parser("status", parents=[common], help="last extraction and dream, the lock, counts per scope")
    status.add_argument("--json", action="store_true")
    recall = sub.add_parser("recall", parents=[common], help="which memories a prompt would recall")
    recall.add_argument("query", metavar="QUERY")
    recall.add_argument("--json", action="store_true")
    recall.add_argument("--heuristic", action="store_true", help="score by words only, never ask the model")
    forget = sub.add_parser("forget", parents=[common], help="preview (or with --yes, delete) the memories a text describes")
    forget.add_argument("query", metavar="QUERY")
    forget.add_argument("--yes", action="store_true", help="delete what is listed (without it nothing changes)")
    forget.add_argument("--heuristic", action="store_true", help="match the text only, never ask the model")
    sub.add_parser("index", parents=[common], help="rebuild every scope's MEMORY.md")
    scan = sub.add_parser("scan", parents=[common], help="which secret rules fire on a file (exit 1 when any does)")
    scan.add_argument("file", metavar="FILE", help="a file, or - for standard input")


# -- list / show -------------------------------------------------------------------------------------


def _list(args: argparse.Namespace, paths: Paths) -> int:
    from app.context.memory.entry import entry_topic, group_entries

    from app.context.memory.scan import scan_notes

    mem = _mem(paths)
    entries = _entries(mem)
    now = time.time()
    for scope, root in _roots(mem):
        for note in scan_notes(Path(root)):  # nothing is left out silently
            print(f"warning: {scope} memory: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps([_entry_row(entry, now) for entry in entries], ensure_ascii=False, indent=2))
        return EXIT_OK
    if not entries:
        print("No memories yet.")
        for scope, root in _roots(mem):
            print(f"  {scope}: {root}")
        return EXIT_OK
    for group in group_entries(entries):
        for entry in group.entries:
            print(_entry_text(entry, entry_topic(entry), now))
    return EXIT_OK


def _entry_row(entry: MemoryEntry, now: float) -> dict[str, Any]:
    from app.context.memory import memory_age

    return {
        "scope": entry.scope.value,
        "type": entry.type.value if entry.type else None,
        "title": entry.title,
        "description": entry.description,
        "path": str(entry.path),
        "rel_path": entry.rel_path,
        "age": memory_age(entry.mtime, now),
        "mtime": entry.mtime,
        "size": entry.size,
        "pinned": entry.pinned,
        "problems": list(entry.problems),
    }


def _entry_text(entry: MemoryEntry, topic: str, now: float) -> str:
    from app.context.memory import memory_age

    head = f"{entry.scope.value:<7} {topic:<9} {entry.title or entry.rel_path}"
    if entry.description:
        head += f" — {entry.description}"
    lines = [f"{head} ({memory_age(entry.mtime, now)})", f"    {entry.path}"]
    lines.extend(f"    problem: {problem}" for problem in entry.problems)
    return "\n".join(lines)


def _show(args: argparse.Namespace, paths: Paths) -> int:
    from app.context.memory import MemoryPathError, MemoryStore
    from app.context.memory.paths import read_capped

    mem = _mem(paths)
    store = MemoryStore(mem)
    try:
        matches = _find(args.target, _entries(mem), store)
    except MemoryPathError as error:
        return _fail(str(error))
    if not matches:
        print(f"agentctx-tui: no memory matches {args.target!r} (see 'agentctx-tui memory list')", file=sys.stderr)
        return EXIT_FOUND
    if len(matches) > 1:
        listed = "\n".join(f"  {entry.path}" for entry in matches)
        print(f"agentctx-tui: {args.target!r} names {len(matches)} memories; give one of these paths:\n{listed}", file=sys.stderr)
        return EXIT_FOUND
    path = matches[0].path
    try:
        store.confine(path)  # a symlink that leads out of memory is not followed
        content = read_capped(path)
    except (MemoryPathError, OSError) as error:
        return _fail(f"cannot read {path}: {error}")
    sys.stdout.write(content.text if content.text.endswith("\n") or not content.text else content.text + "\n")
    for problem in content.problems:
        print(f"agentctx-tui: {path}: {problem}", file=sys.stderr)
    return EXIT_OK


def _find(target: str, entries: list[MemoryEntry], store: MemoryStore) -> list[MemoryEntry]:
    """The memories ``target`` names: a path, else a scope-relative path, a file name or a memory's
    name (case ignored). Raises MemoryPathError for a path outside the memory directories."""
    candidate = Path(target).expanduser()
    if candidate.is_absolute() or candidate.exists():
        _, absolute = store.confine(candidate)
        return [entry for entry in entries if entry.path == absolute]
    folded = target.casefold()
    keys = (lambda e: e.rel_path, lambda e: e.path.name, lambda e: e.path.stem, lambda e: e.name)
    for key in keys:
        found = [entry for entry in entries if key(entry).casefold() == folded]
        if found:
            return found
    return []


# -- status ---------------------------------------------------------------------------------------------


def _status(args: argparse.Namespace, paths: Paths) -> int:
    from app.context.memory import inspect_lock, read_meta
    from app.context.memory.tasks import RUN_STATUS_WORDS, clock_time
    from app.core.tools.text import plural

    mem = _mem(paths)
    meta = read_meta(mem.meta_file)
    lock = inspect_lock(mem.lock_file, time.time())
    counts = _counts(mem)
    if args.json:
        print(json.dumps({
            "last_extraction": {"at": meta.last_extraction_at, "status": meta.last_extraction_status, "session_id": meta.last_extraction_session_id, "topics": list(meta.last_extraction_touched_topics)},
            "last_dream": {"at": meta.last_dream_at, "status": meta.last_dream_status, "session_id": meta.last_dream_session_id},
            "lock": {"state": lock.state.value, "pid": lock.pid, "age_seconds": lock.age, "path": str(mem.lock_file)},
            "scopes": counts,
            "meta_file": str(mem.meta_file),
        }, ensure_ascii=False, indent=2))
        return EXIT_OK

    def last(at: float | None, status: str | None) -> str:
        return f"{clock_time(at)} ({RUN_STATUS_WORDS.get(status or '', status or 'no status')})" if at else "never"

    print(f"Last extraction: {last(meta.last_extraction_at, meta.last_extraction_status)}")
    print(f"Last dream:      {last(meta.last_dream_at, meta.last_dream_status)}")
    held = f" by pid {lock.pid}" if lock.pid else ""
    print(f"Dream lock:      {lock.state.value}{held} ({mem.lock_file})")
    for scope, row in counts.items():
        print(f"{scope.capitalize() + ':':<16} {plural(row['files'], 'file')}, {row['usable']} usable, {row['with_problems']} with problems — {row['root']}")
    return EXIT_OK


def _counts(mem: MemoryPaths) -> dict[str, dict[str, Any]]:
    from app.context.memory import MemoryStore

    store = MemoryStore(mem)
    counts: dict[str, dict[str, Any]] = {}
    for scope, root in _roots(mem):
        entries = store.list(scope)
        counts[scope] = {
            "files": len(entries),
            "usable": sum(1 for e in entries if e.usable),
            "with_problems": sum(1 for e in entries if e.problems),
            "root": str(root),
        }
    return counts


# -- recall / forget --------------------------------------------------------------------------------


def _recall(args: argparse.Namespace, paths: Paths) -> int:
    import asyncio

    from app.cli.settings import settings_for
    from app.context.memory import MemoryStore, memory_age
    from app.context.memory.recall import MAX_RELEVANT_DOCS, heuristic_result, model_result, plan_from_store
    from app.context.memory.semantic import semantic_from_setting

    settings = settings_for(paths)
    mem = _mem(paths)
    provider = None if args.heuristic or not settings.memory.recall_model else _provider(settings)
    # The turn's own rankers: semantic recall per memory.semantic (waited for here, where no turn
    # has to stay fast), so what this shows is what the model would get.
    semantic, notice = semantic_from_setting(settings.memory.semantic)
    if notice:
        print(f"agentctx-tui: {notice}", file=sys.stderr)
    now = time.time()

    async def run() -> Any:
        try:
            plan = await asyncio.to_thread(plan_from_store, MemoryStore(mem), args.query, semantic=semantic, block_semantic=True)
            if provider is None or not plan.candidates:
                return plan, heuristic_result(plan, MAX_RELEVANT_DOCS, now)
            return plan, await model_result(provider, args.query, plan, timeout=settings.memory.recall_timeout, now=now)
        finally:
            if provider is not None:
                await provider.aclose()

    plan, result = asyncio.run(run())
    scores = {id(entry): row for entry, row in zip(plan.relevant, plan.scores)}
    rankers = list(plan.rankers)
    if semantic is not None and semantic.error:
        print(f"agentctx-tui: semantic recall could not load its model ({semantic.error}); keywords only", file=sys.stderr)
    if args.json:
        print(json.dumps({
            "strategy": result.strategy.value,
            "fallback_reason": result.fallback_reason,
            "rankers": rankers,
            "semantic_model": semantic.model_name if semantic is not None and "semantic" in rankers else None,
            "memories": [_entry_row(entry, now) | {"scores": scores.get(id(entry), {})} for entry in result.entries],
        }, ensure_ascii=False, indent=2))
        return EXIT_OK
    print(f"strategy: {result.strategy.value}" + (f" (the model could not choose: {result.fallback_reason})" if result.fallback_reason else ""))
    print("rankers: " + (" + ".join(rankers) or "none (no memories)"))
    if not result.entries:
        print("No memories would be recalled.")
    for rank, entry in enumerate(result.entries, 1):
        print(f"{rank}. {entry.path}  [{entry.type.value if entry.type else '?'}] {entry.description or entry.title} ({memory_age(entry.mtime, now)})")
    return EXIT_OK


def _forget(args: argparse.Namespace, paths: Paths) -> int:
    import asyncio

    from app.context.memory import (
        MemoryScope,
        MemoryStore,
        apply_forget,
        select_forget_candidates,
    )
    from app.cli.settings import settings_for
    from app.context.memory.forget import describe_item, forget_preview

    settings = settings_for(paths)
    store = MemoryStore(_mem(paths))
    provider = None if args.heuristic else _provider(settings)

    async def run() -> Any:
        try:
            entries = store.list_scopes((MemoryScope.PROJECT, MemoryScope.USER))
            return await select_forget_candidates(args.query, entries, provider=provider)
        finally:
            if provider is not None:
                await provider.aclose()

    selection = asyncio.run(run())
    if not selection.candidates:
        print(f"No managed auto-memory entries matched: {args.query}")
        return EXIT_FOUND
    how = "the model" if selection.strategy == "model" else "matching the text"
    print(f"Chosen by {how}" + (f" (the model could not choose: {selection.fallback_reason})" if selection.fallback_reason else "") + ":")
    for item in forget_preview(selection.candidates):
        print(f"  {describe_item(item, str(item.path))}")
    if not args.yes:
        print("Nothing was deleted; run again with --yes to forget these.")
        return EXIT_OK
    result = apply_forget(store, selection.candidates)
    for problem in result.problems:
        print(f"agentctx-tui: {problem}", file=sys.stderr)
    print(result.message)
    for path in result.deleted:
        print(f"  deleted {path}")
    for path in result.rewritten:
        print(f"  rewritten {path}")
    return EXIT_OK


# -- index / scan ----------------------------------------------------------------------------------------


def _index(args: argparse.Namespace, paths: Paths) -> int:
    from app.context.memory import (
        MemoryScope,
        TeamMemoryRootSecurityError,
        rebuild_index,
    )

    mem = _mem(paths)
    failed = False
    for scope, root in _roots(mem):
        # Without a team directory there is no team memory: do not create one in the repository.
        if scope == MemoryScope.TEAM and not root.is_dir():
            print(f"{scope}: no team memory ({root} does not exist)")
            continue
        try:
            write = rebuild_index(mem, scope)
        except (TeamMemoryRootSecurityError, OSError) as error:  # a team root failing its check, an unwritable directory
            print(f"agentctx-tui: {scope}: the index was not rebuilt: {error}", file=sys.stderr)
            failed = True
            continue
        state = "written" if write.written else "unchanged"
        cut = f", {len(write.index.dropped)} left out (too large)" if write.index.cut else ""
        noun = "memory" if write.index.kept == 1 else "memories"
        print(f"{scope}: {write.path} ({write.index.kept} {noun}, {state}{cut})")
    return EXIT_FOUND if failed else EXIT_OK


def _scan(args: argparse.Namespace, paths: Paths) -> int:
    from app.context.memory.secrets import scan

    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        return _fail(f"cannot read {args.file}: {error.strerror or error}")
    findings = scan(text)
    if not findings:
        print("No secrets found.")
        return EXIT_OK
    for finding in findings:
        print(f"{finding.rule_id}\t{finding.label}")
    return EXIT_FOUND


# -- shared -----------------------------------------------------------------------------------------------


def _mem(paths: Paths) -> MemoryPaths:
    from app.context.memory import memory_paths

    return memory_paths(paths)


def _roots(mem: MemoryPaths) -> list[tuple[str, Path]]:
    from app.context.memory import MemoryScope

    return [(scope.value, mem.root(scope)) for scope in MemoryScope]


def _entries(mem: MemoryPaths) -> list[MemoryEntry]:
    from app.context.memory import MemoryScope, MemoryStore

    return MemoryStore(mem).list_scopes(tuple(MemoryScope))


def _provider(settings: Settings) -> Provider | None:
    if not settings.has_endpoint:
        return None
    from app.runtime import model_provider

    return model_provider(settings)


def _fail(message: str) -> int:
    print(f"agentctx-tui: {message}", file=sys.stderr)
    return EXIT_USAGE
