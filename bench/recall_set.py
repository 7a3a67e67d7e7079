"""A recall set of our own, generated deterministically from templates of the four memory kinds.

Each template is a memory as the product stores it (user, feedback, project,
reference) with the questions a person would ask that it answers: one worded
like the memory, one paraphrased (other words, stems, traditional Chinese for
a simplified memory), some with dates ("in 2021", "last May") or short terms
(CI, Go, UI). Unrelated questions (general programming, small talk) must
recall nothing. Nothing here comes from a public benchmark.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

SEED = 20261201
# "now" for the questions' relative dates: 2026-12-01T00:00:00Z.
NOW = 1_796_083_200.0


@dataclass(frozen=True)
class Memory:
    key: str
    kind: str
    title: str
    description: str
    body: str


@dataclass(frozen=True)
class Question:
    text: str
    target: str | None  # the memory key it should recall first; None: nothing should be recalled
    tag: str  # direct | paraphrase | date | short | chinese | unrelated


SERVICES = ["payments", "search", "billing", "auth", "notifications", "ingest", "reporting", "gateway", "checkout", "inventory", "scheduler", "exporter", "thumbnailer", "ledger", "webhooks", "geocoder",
            "pricing", "mailer", "indexer", "uploader", "crawler", "tracker", "archiver", "translator", "renderer", "profiler", "recommender", "forecaster"]
SERVICES_ZH = [("支付服务", "支付服務"), ("搜索服务", "搜索服務"), ("计费系统", "計費系統"), ("登录模块", "登錄模塊"), ("消息推送", "消息推送"), ("报表系统", "報表系統"), ("网关", "網關"), ("库存系统", "庫存系統"), ("调度器", "調度器"), ("订单系统", "訂單系統"), ("日志平台", "日誌平臺"), ("风控系统", "風控系統")]
PEOPLE = ["Priya", "Mateo", "Yuki", "Olena", "Kwame", "Ines", "Lars", "Farah", "Diego", "Mei", "Tomasz", "Aisha", "Jonas", "Leila", "Ravi", "Sofia"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

# (kind, title, description, body, [(tag, question)...]); {s} service, {p} person, {y} year, {m} month name.
EN_TEMPLATES = [
    ("feedback", "{s} tests use a real database", "integration tests for {s} must hit the docker postgres, never mocks",
     "Never mock the database in the {s} integration tests.\nWhy: a mocked migration hid a broken release.\nHow to apply: start the compose stack first.",
     [("direct", "should the {s} integration tests mock the database?"), ("paraphrase", "can I stub out postgres when testing {s}?")]),
    ("project", "{s} release freeze", "code freeze for {s} starts two days before each release",
     "Merges to {s} stop two days before a release; only fixes approved by {p} go in.",
     [("direct", "when does the {s} code freeze start?"), ("paraphrase", "until when can I still merge into {s} before we ship?")]),
    ("reference", "{s} dashboards", "the {s} latency and error dashboards are in Grafana under team-{s}",
     "Grafana folder team-{s}: latency p99, error rate, saturation.",
     [("direct", "where are the {s} dashboards?"), ("paraphrase", "which grafana board shows {s} latency?")]),
    ("user", "{p} prefers terse answers", "{p} wants short answers with the command first, no preamble",
     "{p} reads on a phone during on-call; lead with the command.",
     [("direct", "how does {p} like answers written?"), ("paraphrase", "what reply style suits {p}?")]),
    ("project", "{s} owner", "{p} owns the {s} service and approves its schema changes",
     "Ask {p} before changing the {s} schema; they review every migration.",
     [("direct", "who owns the {s} service?"), ("paraphrase", "whom should I ask before migrating the {s} schema?")]),
    ("reference", "{s} runbook", "the {s} on-call runbook lives in the ops wiki page ops/{s}",
     "Runbook: ops wiki, page ops/{s}. First step: check the queue depth.",
     [("direct", "where is the {s} runbook?"), ("paraphrase", "{s} is paging me, what are the on-call steps?")]),
    ("feedback", "{s} logging style", "log lines in {s} are structured JSON with a request id, no print statements",
     "Use the structured logger in {s}; every line carries request_id.",
     [("direct", "how should I log in {s}?"), ("paraphrase", "can I use print for debugging output in {s}?")]),
    ("project", "{s} incident in {y}", "in {m} {y} the {s} outage was caused by an expired certificate",
     "Incident {m} {y}: {s} was down for 3 hours after its TLS certificate expired; renewals are now automated.",
     [("date", "what went wrong with {s} in {y}?"), ("paraphrase", "why did {s} go down back in {m} {y}?")]),
]
SHORT_TEMPLATES = [
    ("feedback", "CI must pass before merge", "never merge a PR while CI is red, even for docs",
     "CI red means no merge. Rerun flaky jobs once, then fix them.", [("short", "can I merge if CI is failing?"), ("short", "CI is red on my docs PR, merge anyway?")]),
    ("user", "writes Go daily", "the user writes Go every day and is new to the React side of the UI",
     "Explain frontend concepts in terms of Go where possible.", [("short", "which language does the user know best, Go?"), ("short", "how should I explain the UI code to them?")]),
    ("reference", "UI design tokens", "the UI colour and spacing tokens are in design/tokens.json",
     "Change tokens there, never hard-code colours in components.", [("short", "where are the UI tokens?"), ("short", "can I hard-code a colour in the UI?")]),
    ("project", "ML model retraining", "the ranking ML model is retrained every Sunday night",
     "Retraining job runs Sunday 02:00 UTC; do not deploy ranking changes then.", [("short", "when is the ML model retrained?"), ("short", "is there a weekly ML job I should avoid?")]),
    ("reference", "DB connection limits", "the primary DB allows 200 connections; pgbouncer in front",
     "Max 200 connections on the primary DB; always go through pgbouncer.", [("short", "how many DB connections can we open?"), ("short", "what is the DB connection cap?")]),
    ("feedback", "PR size", "keep each PR under 400 lines; split refactors from features",
     "Reviewers asked for PRs under 400 changed lines.", [("short", "how big should a PR be?"), ("short", "should a refactor go in the same PR as the feature?")]),
]
ZH_TEMPLATES = [
    ("feedback", "{s}测试规范", "{s}的集成测试必须连接真实数据库，不要用 mock",
     "{s}的集成测试不要模拟数据库。原因：模拟的迁移掩盖了一次失败的发布。",
     [("chinese", "{s}的集成测试可以用 mock 吗"), ("chinese", "{t}的集成測試可以模擬資料庫嗎")]),
    ("project", "{s}代码冻结", "{s}每次发布前两天开始代码冻结",
     "{s}发布前两天停止合并，只接受紧急修复。",
     [("chinese", "{s}什么时候代码冻结"), ("chinese", "{t}程式碼凍結是什麼時候")]),
    ("reference", "{s}监控面板", "{s}的延迟和错误率面板在 Grafana 的团队目录下",
     "Grafana：{s}目录，包含延迟、错误率。",
     [("chinese", "{s}的监控面板在哪里"), ("chinese", "去哪看{s}的延迟")]),
    ("project", "{s}负责人", "{p}负责{s}，所有表结构变更需要{p}审批",
     "修改{s}的表结构前先找{p}。",
     [("chinese", "{s}的负责人是谁"), ("chinese", "{t}的表結構變更找誰審批")]),
]
DATED = [
    ("project", "{s} migration to Kubernetes", "the {s} service moved to Kubernetes on {d}",
     "{s} moved from VMs to Kubernetes on {d}; the old hosts were shut down a week later.",
     [("date", "when did {s} move to Kubernetes?"), ("date", "what changed for {s} last {m}?")]),
]
UNRELATED = [
    "how do I reverse a linked list in python?", "what is the difference between TCP and UDP?", "explain big O notation",
    "write a haiku about autumn", "what's a good name for a cat?", "how do closures work in javascript?",
    "convert this string to uppercase", "what is a monad?", "how many bytes are in a kilobyte?", "tell me a joke",
    "what is the capital of Australia?", "how do I center a div?", "sort a list of tuples by the second element",
    "what does HTTP 418 mean?", "explain recursion to a child", "what is the weather like on Mars?",
    "how do I exit vim?", "what is a binary search tree?", "regex for an email address", "how does garbage collection work in java?",
    "what is the difference between a process and a thread?", "translate hello into french", "how do I compute a factorial?",
    "what is dependency injection?", "how do hash maps handle collisions?", "what's the best way to learn rust?",
    "怎么反转一个链表", "什么是闭包", "讲一个笑话", "如何学习英语", "今天星期几", "解释一下递归",
    "二叉树怎么遍历", "Python 的装饰器是什么", "猫为什么喜欢纸箱", "推荐一本科幻小说",
    "how do I make sourdough bread?", "what is quantum entanglement?", "list the planets in order", "how do vaccines work?",
    "what is a good stretching routine?", "how do I fold a fitted sheet?", "what rhymes with orange?", "explain photosynthesis",
    "what is the speed of light?", "how do I write a cover letter?", "what is the longest river?", "how does a compiler work?",
    "什么是量子计算", "怎么做红烧肉", "地球到月球多远", "如何写简历",
    "why is the sky blue?", "what is an API?", "how do I parse JSON in C?", "what is the Pythagorean theorem?",
    "how do I boil an egg?", "who wrote Hamlet?", "what is machine learning?", "how do I learn to juggle?",
]


def build(seed: int = SEED) -> tuple[list[Memory], list[Question]]:
    rng = random.Random(seed)
    memories: list[Memory] = []
    questions: list[Question] = []

    def add(kind: str, title: str, description: str, body: str, asks: list[tuple[str, str]]) -> None:
        key = f"{kind}/m{len(memories):04d}"
        memories.append(Memory(key, kind, title, description, body))
        for tag, text in asks:
            questions.append(Question(text, key, tag))

    for template in EN_TEMPLATES:
        kind, title, description, body, asks = template
        for service in SERVICES:
            values = {"s": service, "p": rng.choice(PEOPLE), "y": str(rng.randint(2019, 2025)), "m": rng.choice(MONTHS)}
            chosen = [rng.choice(asks)]
            add(kind, title.format(**values), description.format(**values), body.format(**values), [(tag, text.format(**values)) for tag, text in chosen])
    for kind, title, description, body, asks in SHORT_TEMPLATES:
        add(kind, title, description, body, asks)
    for template in ZH_TEMPLATES:
        kind, title, description, body, asks = template
        for simplified, traditional in SERVICES_ZH:
            values = {"s": simplified, "t": traditional, "p": rng.choice(PEOPLE)}
            add(kind, title.format(**values), description.format(**values), body.format(**values), [(tag, text.format(**values)) for tag, text in [rng.choice(asks)]])
    for kind, title, description, body, asks in DATED:
        for offset, service in enumerate(SERVICES):
            month = (offset % 12) + 1
            year = 2026 if month < 12 else 2025  # "last <month>" from 2026-12-01
            values = {"s": service, "d": f"{year}-{month:02d}-{rng.randint(1, 28):02d}", "m": MONTHS[month - 1]}
            add(kind, title.format(**values), description.format(**values), body.format(**values), [(tag, text.format(**values)) for tag, text in asks])
    for text in UNRELATED:
        questions.append(Question(text, None, "unrelated"))
    return memories, questions
