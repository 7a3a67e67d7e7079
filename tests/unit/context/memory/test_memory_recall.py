"""Recall: query tokens, heuristic scores, the tool filter, the model selector and its fallback,
the reminder text, and the task polled without waiting."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app.context.memory.ranking import rank, relevant
from app.context.memory.terms import document_terms, query_terms
from app.context.memory.recall import (
    RecallStrategy,
    holds_secret,
    list_recall_candidates,
    plan_recall,
    recall_for_query,
    select_memories,
)
from app.context.memory.recall_task import RecallTask
from app.context.memory.prompt import recall_reminder, render_relevant_memory
from app.context.memory.selector import (
    MAX_MODEL_MANIFEST_BYTES,
    SELECTOR_SCHEMA,
    RecallSelectorError,
    build_manifest,
    build_selector_request,
    manifest_line,
    model_candidates,
    parse_selection,
    selector_prompt,
)
from app.context.memory.store import MemoryStore
from app.context.memory.selector import filter_active_tool_memories, tool_aliases
from app.core.llm.errors import LLMError
from tests.unit.memory_support import (
    DAY,
    NOW,
    FakeProvider,
    entry,
    make_paths,
    memory_text,
    piece,
    put,
)

# Terms: the same analysis for a memory and a question.

NOW_DEC = 1_796_083_200.0  # 2026-12-01T00:00:00Z


def test_stop_words_go_stems_merge_and_two_letter_words_stay() -> None:
    assert query_terms("What did the CI run do on the Go UI deploys?") == ["ci", "run", "go", "ui", "deploy"]
    assert query_terms("deploying deployed deploys") == ["deploy"]


def test_nfkc_folds_full_width_and_ligatures() -> None:
    assert query_terms("ＦＵＬＬ width ﬁle") == ["full", "width", "file"]


def test_chinese_bigrams_split_at_function_words_and_lone_characters_count() -> None:
    assert query_terms("数据库测试") == ["数据", "据库", "库测", "测试"]
    assert query_terms("猫") == ["猫"]
    assert query_terms("我的猫叫什么名字") == ["猫叫", "名字"]
    assert "猫" in document_terms("我的猫叫咪咪")  # a memory indexes single characters too


def test_traditional_folds_to_simplified_on_both_sides() -> None:
    assert query_terms("程式碼凍結") == query_terms("代码冻结") == ["代码", "码冻", "冻结"]
    assert query_terms("資料庫") == query_terms("数据库")


def test_dates_in_text_and_relative_dates_in_questions() -> None:
    assert "@2021-05" in document_terms("The outage on 2021-05-03 took the site down")
    assert {"@2024-05", "@2024", "@m05"} <= set(document_terms("Moved in May 2024"))
    assert "@2021-05" in document_terms("2021年5月的事故")
    assert query_terms("what happened in 2021?", NOW_DEC)[:1] == ["@2021"]
    assert "@2026-05" in query_terms("what changed last May?", NOW_DEC)
    assert "@2025" in query_terms("去年的发布", NOW_DEC)
    assert "@m05" not in query_terms("we may ship soon", NOW_DEC)  # the verb is no month


def test_terms_are_deduplicated_and_capped_head_and_tail() -> None:
    assert query_terms("alpha beta alpha Alpha") == ["alpha", "beta"]
    words = [f"w{i:03}" for i in range(100)]
    assert query_terms(" ".join(words)) == words[:32] + words[-32:]


# BM25F ranking.


def test_title_beats_description_beats_body() -> None:
    in_title = entry("Grafana boards", "where things are", "see the wiki", rel_path="reference/a.md")
    in_description = entry("Where things are", "grafana boards", "see the wiki", rel_path="reference/b.md")
    in_body = entry("Where things are", "see the wiki", "grafana boards", rel_path="reference/c.md")
    ranked = rank(query_terms("grafana"), [in_body, in_description, in_title])
    assert [r.entry.rel_path for r in ranked] == ["reference/a.md", "reference/b.md", "reference/c.md"]
    assert ranked[0].score > ranked[1].score > ranked[2].score > 0


def test_ties_break_by_path_never_by_file_clocks() -> None:
    old = entry("Alpha", mtime=NOW - 5 * DAY, rel_path="project/old.md")
    new = entry("Alpha", mtime=NOW, rel_path="project/new.md")
    assert [r.entry.rel_path for r in rank(["alpha"], [old, new])] == ["project/new.md", "project/old.md"]
    assert [r.entry.rel_path for r in rank(["alpha"], [new, old])] == ["project/new.md", "project/old.md"]


def test_an_unrelated_question_recalls_nothing() -> None:
    docs = [entry("Database tests", "integration tests hit a real database", "no mocks", rel_path="feedback/db.md"),
            entry("Release train", "releases ship on Tuesdays", "cut the branch Monday", rel_path="project/release.md")]
    assert relevant(rank(query_terms("how do I reverse a linked list in python?"), docs)) == []
    assert [r.entry.rel_path for r in relevant(rank(query_terms("do the integration tests use a real database?"), docs))] == ["feedback/db.md"]


@pytest.mark.parametrize(
    ("query", "title", "body"),
    [
        ("数据库测试不要用 mock", "数据库测试规范", "集成测试必须连真实数据库"),
        ("測試規範是什麼", "数据库测试规范", "集成测试必须连真实数据库"),
        ("テストの実行方法", "テスト実行", "統合テストは本物のデータベースで実行する"),
        ("테스트 실행 방법", "테스트 실행 규칙", "통합 테스트는 실제 데이터베이스로"),
    ],
    ids=["chinese", "traditional", "japanese", "korean"],
)
def test_cjk_queries_find_cjk_memories(query: str, title: str, body: str) -> None:
    relevant = entry(title, "", body, memory_type="feedback", rel_path="feedback/cjk.md")
    other = entry("Release calendar", "Dates of releases", "Fridays", rel_path="project/release.md")
    plan = plan_recall(query, [other, relevant])
    assert [e.rel_path for e in plan.relevant] == ["feedback/cjk.md"]


RELEASE_BODY = (
    "发布之前需要完成代码评审，评审通过后由值班同事合并。合并后流水线自动构建镜像并推送到仓库，然后在预发环境部署验证，"
    "验证通过再上线。上线后观察监控半小时，如果错误率升高立即回滚并通知负责人。"
)


@pytest.mark.parametrize("query", ["部", "署", "部署", "部署验证", "预发环境部署"])
def test_one_and_two_character_cjk_queries_recall_like_longer_ones(query: str) -> None:
    # The memory mentions 部署 once, in a long body: one term found once there saturates low, and
    # the coverage cut-off used to drop it for a one-term question while a longer one recalled it.
    release = entry("发布流程", "每周二发布", RELEASE_BODY, memory_type="project", rel_path="project/release.md")
    others = [
        entry("数据库规范", "集成测试必须连真实数据库", "不要用 mock。", memory_type="feedback", rel_path="feedback/db.md"),
        entry("代码风格", "使用统一的格式化工具", "提交前运行格式化和静态检查。", memory_type="feedback", rel_path="feedback/style.md"),
        entry("值班安排", "每周轮换", "值班同事负责处理告警。", memory_type="project", rel_path="project/oncall.md"),
    ]
    plan = plan_recall(query, [*others, release])
    assert [e.rel_path for e in plan.relevant] == ["project/release.md"]


def test_dates_name_a_day_and_a_week_and_questions_ask_for_the_week_before_or_after() -> None:
    assert {"@2023-06-02", "@w2023-22", "@2023-06"} <= set(document_terms("Melanie painted a sunset on 2 June 2023."))
    assert "@2023-06-02" in query_terms("What did Melanie do on June 2nd, 2023?", NOW_DEC)
    assert "@2023-06-02" in document_terms("deployed 2023-06-02")
    before = query_terms("What did Melanie do the week before 9 June 2023?", NOW_DEC)
    assert "@w2023-22" in before and "@2023-06-09" not in before  # the week it means, not the day it names
    assert "@w2023-24" in query_terms("the week after 9 June 2023", NOW_DEC)
    assert "@2024-02-29" in document_terms("on 31 February 2024")  # a day past the month's end: its last day
    sunset = entry("Melanie painted a sunset", "", "Melanie painted a sunset over the lake on 2 June 2023.", memory_type="user", rel_path="user/sunset.md")
    later = entry("Melanie painted a portrait", "", "Melanie painted a portrait on 16 June 2023.", memory_type="user", rel_path="user/portrait.md")
    plan = plan_recall("What did Melanie get up to the week before 9 June 2023?", [later, sunset], now=NOW_DEC)
    assert [e.rel_path for e in plan.relevant][:1] == ["user/sunset.md"]


def test_words_no_memory_uses_weigh_less_but_a_question_of_only_such_words_recalls_nothing() -> None:
    # Real questions paraphrase: "purchase" and "stargazing" are in no memory, "telescope" is.
    docs = [
        entry("Melanie bought a telescope", "", "Melanie bought a telescope on 3 May 2023.", memory_type="user", rel_path="user/telescope.md"),
        entry("Melanie cooked ramen", "", "Melanie cooked homemade ramen on 9 May 2023.", memory_type="user", rel_path="user/ramen.md"),
        entry("Mateo visited the aquarium", "", "Mateo visited an aquarium with Omar.", memory_type="user", rel_path="user/aquarium.md"),
    ]
    assert [e.rel_path for e in plan_recall("Did Melanie ever purchase a stargazing telescope?", docs, now=NOW_DEC).relevant] == ["user/telescope.md"]
    assert plan_recall("When did Melanie go skydiving over the desert?", docs, now=NOW_DEC).relevant == ()


# The active-tool filter.


def test_tool_aliases() -> None:
    assert tool_aliases("Read_File") == {"read_file"}
    assert tool_aliases("github::create_issue") == {"github::create_issue", "create_issue"}
    assert tool_aliases("mcp__jira__search__issues") == {"mcp__jira__search__issues", "search__issues", "issues"}
    assert tool_aliases("mcp__jira__create") == {"mcp__jira__create", "create"}


def test_usage_notes_for_a_just_used_tool_are_left_out() -> None:
    usage = entry("grep_search tips", "Usage of grep_search", "Pass the include flag to limit files", rel_path="reference/usage.md")
    durable = entry("grep_search pitfall", "Known issue with grep_search", "Its parameter order is a gotcha", rel_path="reference/durable.md")
    unrelated = entry("Release", "Usage of the release script", "flag --dry-run", rel_path="project/release.md")
    kept = filter_active_tool_memories([usage, durable, unrelated], ["grep_search"])
    assert [e.rel_path for e in kept] == ["reference/durable.md", "project/release.md"]
    assert filter_active_tool_memories([usage], []) == [usage]


def test_tool_names_match_whole_words_only() -> None:
    note = entry("Credit card flag", "usage of the credits API", "", rel_path="reference/credit.md")
    assert filter_active_tool_memories([note], ["edit"]) == [note]


# The model selector.


def test_manifest_line() -> None:
    doc = entry("Role", "Senior engineer", memory_type="user", mtime=1_700_000_000.5, root=Path("/mem/user"))
    assert manifest_line(doc, "m3") == "- m3 [user] (2023-11-14): Role \u2014 Senior engineer"
    bare = entry("Role", "", memory_type="user", mtime=1_700_000_000.0, root=Path("/mem/user"))
    assert manifest_line(bare, "m1") == "- m1 [user] (2023-11-14): Role"
    assert "/mem/user" not in manifest_line(doc, "m3")  # a short id, never the absolute path


def test_manifest_descriptions_are_cut_at_512_units_without_splitting_a_pair() -> None:
    doc = entry("E", "a" * 511 + "\U0001F600" + "tail")
    assert manifest_line(doc, "m1").endswith(" \u2014 " + "a" * 511)
    assert manifest_line(entry("E", "b" * 600), "m1").endswith(" \u2014 " + "b" * 512)


def test_manifest_skips_lines_that_do_not_fit_and_keeps_going() -> None:
    small = [entry(f"S{i}", "short", rel_path=f"project/s{i}.md") for i in range(3)]
    huge = [entry(f"H{i}", "h" * 500, rel_path=f"project/h{i}.md") for i in range(60)]
    manifest, listed = build_manifest([small[0], *huge, small[1], small[2]])
    assert len(manifest.encode("utf-8")) <= MAX_MODEL_MANIFEST_BYTES
    entries = [e for _, e in listed]
    assert small[2] in entries and small[1] in entries and len(listed) < 63


def test_two_hundred_candidates_fit_the_manifest_with_short_ids() -> None:
    # Measured before: with absolute paths only 132 of 200 fitted in the 25 KB.
    docs = [entry(f"Memory about topic {i}", "d" * 60, rel_path=f"project/some-long-memory-file-name-{i:03}.md", root=Path("/home/someone/.local/share/agentctx-tui/projects/-home-someone-src-a-long-project-name/memory")) for i in range(200)]
    manifest, listed = build_manifest(docs)
    assert len(listed) == 200 and len(manifest.encode("utf-8")) <= MAX_MODEL_MANIFEST_BYTES


def test_candidates_reserve_the_twenty_newest() -> None:
    ranked = [entry(f"R{i}", rel_path=f"project/r{i:03}.md", mtime=NOW - (300 - i) * DAY) for i in range(300)]
    chosen = model_candidates(ranked)
    assert len(chosen) == 200
    newest = sorted(ranked, key=lambda e: -e.mtime)[:20]
    assert chosen[:20] == newest
    assert chosen[20:] == ranked[:180]


def test_selector_prompt_and_schema() -> None:
    assert selector_prompt("  which db?  ", "- [user] /a.md", ["read_file", "grep_search"]) == (
        "Query: which db?\n\nAvailable memories:\n- [user] /a.md\n\nRecently used tools: read_file, grep_search"
    )
    assert selector_prompt("q", "m") == "Query: q\n\nAvailable memories:\nm"
    assert SELECTOR_SCHEMA == {
        "type": "object",
        "properties": {"selected_memories": {"type": "array", "items": {"type": "string"}}},
        "required": ["selected_memories"],
        "additionalProperties": False,
    }


def test_same_relative_path_in_two_scopes_stays_two_candidates() -> None:
    project = entry("Role", memory_type="user", root=Path("/p"))
    user = entry("Role", memory_type="user", root=Path("/u"))
    request = build_selector_request("role", [project, user])
    assert [str(e.path) for e in request.candidates.values()] == ["/p/user/role.md", "/u/user/role.md"]
    assert list(request.candidates) == ["m1", "m2"]
    assert request.temperature == 0.0


def test_selection_errors() -> None:
    docs = [entry(f"D{i}", rel_path=f"project/d{i}.md") for i in range(7)]
    request = build_selector_request("q", docs)
    with pytest.raises(RecallSelectorError, match="^Recall selector must return selected_memories array$"):
        parse_selection({"selected": []}, request, 5)
    with pytest.raises(RecallSelectorError, match="^Recall selector must return selected_memories array$"):
        parse_selection({"selected_memories": [1]}, request, 5)
    with pytest.raises(RecallSelectorError, match="^Recall selector returned too many documents: 6$"):
        parse_selection({"selected_memories": [f"m{i}" for i in range(1, 7)]}, request, 5)
    with pytest.raises(RecallSelectorError, match="^Recall selector returned an unknown memory id$"):
        parse_selection({"selected_memories": ["/nope.md"]}, request, 5)
    assert parse_selection({"selected_memories": ["m4", "m4"]}, request, 5) == [docs[3]]


# The reminder.


def test_reminder_layout() -> None:
    doc = entry("DB tests", "Never mock the DB", "Use the real database.", memory_type="feedback", mtime=NOW - 47 * DAY)
    fresh = entry("Role", "", "", memory_type="user", mtime=NOW - 3600)
    assert render_relevant_memory([doc, fresh], NOW) == (
        "## Relevant memory\n"
        "\n"
        "Use the following memories only when they are directly relevant to the current request. "
        "Verify file/function claims before relying on them.\n"
        "\n"
        "### DB tests (feedback/db-tests.md)\n"
        "Saved 47 days ago.\n"
        "Never mock the DB\n"
        "\n"
        "Use the real database.\n"
        "\n"
        "> NOTE: This memory is 47 days old. Memories are point-in-time observations, not live state \u2014 "
        "claims about code behavior or file:line citations may be outdated. Verify against current code before asserting as fact.\n"
        "\n"
        "### Role (user/role.md)\n"
        "Saved today.\n"
        "\n"
        "_No detailed entries yet._\n"
    )
    reminder = recall_reminder([fresh], NOW)
    assert reminder.startswith("<system-reminder>\n## Relevant memory\n") and reminder.endswith("\n</system-reminder>")
    assert recall_reminder([], NOW) == "" and render_relevant_memory([], NOW) == ""


def test_long_bodies_are_cut_and_placeholders_count_as_empty() -> None:
    long_doc = entry("Long", "", "word " * 400)
    text = render_relevant_memory([long_doc], NOW)
    assert ("word " * 240).rstrip() + "\n\n> NOTE: Relevant memory truncated for prompt budget." in text
    assert "_No detailed entries yet._" in render_relevant_memory([entry("P", "", "_No entries yet._")], NOW)


# Selecting.


def _docs() -> list:
    return [
        entry("Database tests", "Integration tests hit a real database", "No mocks.", memory_type="feedback", rel_path="feedback/db.md", mtime=NOW - DAY),
        entry("Release train", "Releases ship on Tuesdays", "Cut the branch Monday.", rel_path="project/release.md", mtime=NOW - 2 * DAY),
        entry("Role", "Backend engineer, terse answers", "", memory_type="user", rel_path="user/role.md", mtime=NOW - 3 * DAY),
    ]


async def test_heuristic_without_a_provider() -> None:
    result = await select_memories("database tests please", _docs(), now=NOW)
    assert result.strategy is RecallStrategy.HEURISTIC
    assert [e.rel_path for e in result.entries] == ["feedback/db.md"]
    assert result.reminder.startswith("<system-reminder>\n## Relevant memory")


@pytest.mark.parametrize(("query", "limit"), [("   ", 5), ("database", 0), ("database", -1)])
async def test_nothing_to_do_is_strategy_none(query: str, limit: int) -> None:
    result = await select_memories(query, _docs(), limit=limit, now=NOW)
    assert result.strategy is RecallStrategy.NONE and result.reminder == ""


async def test_no_documents_is_strategy_none() -> None:
    assert (await select_memories("database", [], now=NOW)).strategy is RecallStrategy.NONE


async def test_never_more_than_five() -> None:
    docs = [entry(f"Database note {i}", rel_path=f"project/n{i}.md") for i in range(9)]
    result = await select_memories("database", docs, limit=50, now=NOW)
    assert len(result.entries) == 5


async def test_excluded_paths_are_not_recalled() -> None:
    docs = _docs()
    result = await select_memories("database tests", docs, excluded_paths=[str(docs[0].path)], now=NOW)
    assert result.entries == ()


async def test_model_choice_is_used() -> None:
    docs = _docs()
    provider = FakeProvider({"selected_memories": ["m3", "m2"]})
    result = await select_memories("who am I and when do we release", docs, provider=provider, recent_tools=["read_file"], now=NOW)
    assert result.strategy is RecallStrategy.MODEL
    assert [e.rel_path for e in result.entries] == ["user/role.md", "project/release.md"]
    [request] = provider.requests
    assert request.temperature == 0.0
    prompt = request.messages[0].content
    assert prompt.startswith("Query: who am I and when do we release\n\nAvailable memories:\n- m1 [feedback] (")
    assert prompt.endswith("\n\nRecently used tools: read_file")
    assert "No mocks." not in prompt  # headers only
    assert request.response_format is not None and request.response_format["type"] == "json_schema"


async def test_model_error_falls_back_to_the_heuristic() -> None:
    provider = FakeProvider(error=LLMError("server down", kind="server"))
    result = await select_memories("database tests", _docs(), provider=provider, now=NOW)
    assert result.strategy is RecallStrategy.HEURISTIC
    assert [e.rel_path for e in result.entries] == ["feedback/db.md"]
    assert result.fallback_reason == "server down"


async def test_model_timeout_falls_back_to_the_heuristic() -> None:
    provider = FakeProvider({"selected_memories": []}, delay=60)
    result = await select_memories("database tests", _docs(), provider=provider, timeout=0.05, now=NOW)
    assert result.strategy is RecallStrategy.HEURISTIC
    assert [e.rel_path for e in result.entries] == ["feedback/db.md"]
    assert "did not finish" in (result.fallback_reason or "")


@pytest.mark.parametrize(
    "answer",
    [{"selected_memories": ["/not/listed.md"]}, {"wrong": 1}, {"selected_memories": ["/a"] * 1 + [f"/b{i}" for i in range(6)]}],
)
async def test_unusable_answers_fall_back(answer: object) -> None:
    result = await select_memories("database tests", _docs(), provider=FakeProvider(answer), now=NOW)
    assert result.strategy is RecallStrategy.HEURISTIC
    assert result.fallback_reason and result.fallback_reason.startswith(("Recall selector", "The model's answer"))


async def test_a_provider_that_breaks_unexpectedly_falls_back() -> None:
    result = await select_memories("database", _docs(), provider=FakeProvider(error=RuntimeError("boom")), now=NOW)
    assert result.strategy is RecallStrategy.HEURISTIC and "boom" in (result.fallback_reason or "")


async def test_fast_callback_gets_the_heuristic_top_two() -> None:
    docs = [entry(f"Database note {i}", rel_path=f"project/n{i}.md", mtime=NOW - i) for i in range(4)]
    early: list = []
    await select_memories("database", docs, provider=FakeProvider({"selected_memories": []}), on_fast=early.append, now=NOW)
    assert [[e.rel_path for e in batch] for batch in early] == [["project/n0.md", "project/n1.md"]]


async def test_memories_holding_secrets_are_never_recalled() -> None:
    token = "ghp_" + piece("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)
    leaky = entry("Database token", "Database access", f"token {token}", rel_path="reference/leaky.md")
    clean = entry("Database tests", "Database testing", "real db", rel_path="feedback/db.md", mtime=NOW - DAY)
    assert holds_secret(leaky) and not holds_secret(clean)
    heuristic = await select_memories("database", [leaky, clean], now=NOW)
    assert [e.rel_path for e in heuristic.entries] == ["feedback/db.md"]
    model = await select_memories("database", [leaky, clean], provider=FakeProvider({"selected_memories": ["m1"]}), now=NOW)
    assert model.entries == () and token not in model.reminder


async def test_a_secret_in_a_description_stays_out_of_the_manifest() -> None:
    token = "glpat-" + piece("abcdefghij0123456789", 20)
    leaky = entry("CI", f"uses {token}", rel_path="reference/ci.md")
    provider = FakeProvider({"selected_memories": []})
    await select_memories("ci", [leaky, *_docs()], provider=provider, now=NOW)
    assert token not in provider.requests[0].messages[0].content


async def test_cancelling_cancels_the_model_call() -> None:
    provider = FakeProvider({"selected_memories": []}, delay=60)
    task = asyncio.ensure_future(select_memories("database", _docs(), provider=provider, now=NOW))
    while not provider.requests:
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


# Recall from the store, and the task polled without waiting.


def _store(tmp_path: Path) -> MemoryStore:
    paths = make_paths(tmp_path)
    put(paths.project_root, "feedback/db.md", memory_text("Database tests", "Real database only", "feedback", "No mocks."))
    put(paths.user_root, "user/role.md", memory_text("Role", "Backend engineer", "user"))
    put(paths.user_root, "user/broken.md", "no frontmatter at all")
    return MemoryStore(paths)


def test_candidates_come_from_project_then_user(tmp_path: Path) -> None:
    entries = list_recall_candidates(_store(tmp_path))
    assert [(e.scope.value, e.rel_path) for e in entries] == [("project", "feedback/db.md"), ("user", "user/broken.md"), ("user", "user/role.md")]


async def test_recall_for_query_reads_the_store(tmp_path: Path) -> None:
    result = await recall_for_query(_store(tmp_path), "database", clock=lambda: NOW)
    assert [e.rel_path for e in result.entries] == ["feedback/db.md"]


async def test_task_is_polled_without_waiting(tmp_path: Path) -> None:
    gate = asyncio.Event()

    async def slow() -> object:
        await gate.wait()
        return await recall_for_query(_store(tmp_path), "database", clock=lambda: NOW)

    task = RecallTask(slow())
    assert task.result_if_ready() is None and task.take_if_ready() is None and not task.done
    gate.set()
    result = await task.wait()
    assert result is not None and task.done
    reminder = task.result_if_ready()
    assert reminder is not None and "### Database tests (feedback/db.md)" in reminder
    assert task.take_if_ready() == reminder
    assert task.take_if_ready() is None  # handed out once
    assert task.result_if_ready() == reminder


async def test_task_start_helper(tmp_path: Path) -> None:
    task = RecallTask.start(_store(tmp_path), "role", clock=lambda: NOW)
    await task.wait()
    assert "### Role (user/role.md)" in (task.result_if_ready() or "")


async def test_task_with_nothing_relevant_gives_none(tmp_path: Path) -> None:
    task = RecallTask.start(_store(tmp_path), "kubernetes", clock=lambda: NOW)
    await task.wait()
    assert task.result_if_ready() is None and task.take_if_ready() is None


async def test_cancelled_and_failed_tasks_give_none() -> None:
    async def hang() -> object:
        await asyncio.sleep(60)

    task = RecallTask(hang())
    task.cancel()
    assert await task.wait() is None and task.result_if_ready() is None

    async def fail() -> object:
        raise RuntimeError("broken")

    failing = RecallTask(fail())
    assert await failing.wait() is None and failing.result_if_ready() is None


def test_selector_request_round_trip_through_json() -> None:
    docs = _docs()
    request = build_selector_request("q", docs)
    answer = json.loads(json.dumps({"selected_memories": ["m1"]}))
    assert parse_selection(answer, request, 5) == [docs[0]]
