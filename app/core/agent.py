"""The turn loop: user message -> model -> tools -> model ... -> answer.

The same class runs the main conversation and restricted forked agents (other
system prompt, tools, permissions and budgets). It emits typed events only; it
never knows who is listening.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from app.dataclass import dataclass
from typing import TypeVar, TYPE_CHECKING, Protocol

from app.core.ids import random_hex
from app.core.agent_compaction import MAX_OVERFLOW_COMPACTIONS, OVERFLOW_ADVICE, OVERFLOW_STUCK, AgentCompaction, Emit
from app.core.request import ContextError
from app.core.static_assembler import StaticAssembler
from app.core.events import (
    ApprovalNeeded,
    ContextAssembled,
    AssistantMessage,
    Decision,
    Event,
    Notice,
    ReasoningDelta,
    RequestStarted,
    Retrying,
    StreamReset,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnCancelled,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from app.core.history import Message, ToolCall, Usage, close_dangling_tool_calls
from app.core.images import ImagePart
from app.core.llm.assembly import ReplyAssembler
from app.core.llm.errors import LLMError, interrupted_answer
from app.core.llm.provider import Provider, stream_with_retries
from app.core.llm.retry import RetryPolicy
from app.core.llm.types import Completion, ReasoningPiece, RetryPiece, TextPiece
from app.core.output_limit import SETTING, cut_notice, for_model as cut_for_model
from app.core.session.recorder import RecordWriteError
from app.core.session.records import SUBTYPE_FILE_CHANGE, SUBTYPE_NOTIFICATION, SUBTYPE_REWIND
from app.core.tools.agent_controls import REASON as CONTROLS_REASON
from app.core.tools.arguments import invalid_characters
from app.core.tools.base import Tool, ToolContext, ToolResult
from app.core.tools.invoke import run_tool
from app.core.tools.permissions import PermissionDecision, PermissionPolicy
from app.core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from app.core.protocols import Assembler, Compactor, HookRunner, MicroOutcome, TurnObserver

_END = object()
__all__ = ["Agent", "AgentBusy", "AgentLimits", "ContextError", "StaticAssembler"]
CANCELLED_RESULT = "The user cancelled this tool call before it finished."
_NEEDS_APPROVAL = "This tool call needs approval, and no one can approve it in non-interactive mode. Rerun with --approval-mode auto-edit or yolo to allow it."


def _needs_approval(reason: str) -> str:
    """The refusal for a call that asks with no one to ask; the agent's own controls ask even in auto-edit."""
    if reason == CONTROLS_REASON:
        return (
            "This tool call needs approval: it writes one of the agent's own controls (settings, skills, rules, "
            ".git, QWEN.md/AGENTS.md/CLAUDE.md), which always asks short of --approval-mode yolo, and no one "
            "can approve it in non-interactive mode."
        )
    return _NEEDS_APPROVAL


class Recorder(Protocol):
    """What the agent needs from a session record (see app.core.session.recorder)."""

    def append_message(self, message: Message, *, usage: Usage | None = None, model: str | None = None, durable: bool = False) -> object: ...

    def append_system(self, subtype: str, payload: dict) -> object: ...


@dataclass
class AgentLimits:
    """Budgets for one turn; forked agents get tighter ones."""

    max_requests: int = 50
    max_messages: int | None = None
    time_budget: float | None = None


class AgentBusy(RuntimeError):
    pass


class Agent:
    """One conversation's turn loop.

    Its collaborators come in through the constructor and are not swapped afterwards:
    ``observers`` (in the order they are told about a turn), ``hooks`` (the user's
    lifecycle hooks) and ``compactor`` (run by ``self.compaction`` at its moments).
    """
    _max_tokens: int | None = None  # what the last request allowed the answer
    _cut_reply = False  # the last answer ended at that limit

    def __init__(
        self,
        *,
        provider: Provider,
        tools: ToolRegistry,
        policy: PermissionPolicy,
        tool_context: ToolContext,
        assembler: Assembler,
        recorder: Recorder | None = None,
        history: list[Message] | None = None,
        retry: RetryPolicy | None = None,
        limits: AgentLimits | None = None,
        context_window: int = 0,
        interactive: bool = True,
        compactor: Compactor | None = None,
        observers: Sequence[TurnObserver] = (),
        hooks: HookRunner | None = None,
        last_usage: Usage | None = None,
        session_usage: Usage | None = None,
    ) -> None:
        self.provider = provider
        self.tools = tools
        self.policy = policy
        self.tool_context = tool_context
        self.assembler = assembler
        self.recorder = recorder
        self.history: list[Message] = history if history is not None else []
        self.retry = retry or RetryPolicy()
        self.limits = limits or AgentLimits()
        self.context_window = context_window
        self.interactive = interactive
        self.last_usage = last_usage  # a resumed session's last answer, until the next one
        # Every request's usage summed (the resumed part included): /context's cache hit rate.
        self.session_usage = session_usage or Usage()
        self.last_response_at: float | None = None  # wall clock of the last answer (micro-compaction's idle trigger)
        # Told, in this order, when a turn starts, before each request, about each tool call and when it ends.
        self.observers: tuple[TurnObserver, ...] = tuple(observers)
        self.hooks = hooks
        self.compaction = AgentCompaction(self, compactor)
        self._task: asyncio.Task[None] | None = None
        # The emit of the running turn, and the record problem already told (said once until writes work again).
        self._emit: Callable[[object], None] | None = None
        self._record_problem = ""

    @property
    def compactor(self) -> Compactor | None:
        return self.compaction.compactor

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def adopt_turn(self, messages: list[Message], usage: Usage | None = None) -> None:
        """A turn run elsewhere (an accepted speculation) joins this conversation as if sent here.

        ``messages`` starts with the user's request. The record gets each message (the request
        durably, the last answer with the usage), and what watches turns sees it like any other:
        the before- and after-turn hooks (recall, the engine's fence, extraction, the title, the
        skill drafter) and the tool observers, once per tool call.
        """
        if not messages or messages[0].role != "user":
            raise ValueError("an adopted turn starts with the user's request")
        last_answer = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=-1)
        for index, message in enumerate(messages):
            self.history.append(message)
            self._record(message, durable=index == 0, usage=usage if index == last_answer else None)
            if index == 0:
                for observer in self.observers:
                    observer.on_turn_start(message.content, self.history)
            for call in message.tool_calls:
                try:
                    args = call.parsed_arguments()
                except ValueError:
                    continue
                for observer in self.observers:
                    observer.on_tool_ran(call, args)
        if usage is not None:
            self.last_usage = usage
        for observer in self.observers:
            observer.on_turn_end(self.history, True)

    def rewind(self, index: int, payload: dict) -> None:
        """The conversation goes back to just before ``history[index]`` (a user message); the record says so."""
        if self.busy:
            raise AgentBusy("a turn is running")
        del self.history[index:]
        self.last_usage = None  # it described the context that was just rewound
        self._record_system(SUBTYPE_REWIND, payload)

    def cancel(self) -> bool:
        """Stop the running turn; it ends with a TurnCancelled event. False when idle."""
        if not self.busy:
            return False
        assert self._task is not None
        self._task.cancel()
        return True

    async def aclose(self) -> None:
        """Stop any running turn and release the provider's connections."""
        self.cancel()
        await self.provider.aclose()

    async def run(self, prompt: str) -> AsyncIterator[Event]:
        """Run one turn and yield its events; the last one is TurnFinished, TurnFailed or TurnCancelled."""
        async for event in self._drive(lambda emit: self._turn(prompt, emit)):
            yield event

    def can_resend(self) -> bool:
        """Whether the model still owes a reply: the history ends with the person's words or a tool's result."""
        return bool(self.history) and self.history[-1].role in ("user", "tool")

    async def resend(self) -> AsyncIterator[Event]:
        """Ask the model again after a failed turn, without adding the person's words a second time.

        The words are already in the history and the record; the request is sent again from
        there (after a tool round, the turn goes on from its results).
        """
        if not self.can_resend():
            raise ValueError("nothing to retry: the last message already has its answer")
        prompt = next((m.content for m in reversed(self.history) if m.role == "user" and isinstance(m.content, str)), "")
        async for event in self._drive(lambda emit: self._turn(prompt, emit, resend=True)):
            yield event

    async def _drive(self, work: Callable[[Callable[[object], None]], Awaitable[None]]) -> AsyncIterator[Event]:
        """Run ``work(emit)`` as this agent's one task and yield what it emits until it ends."""
        if self.busy:
            raise AgentBusy("a turn is already running")
        queue: asyncio.Queue[object] = asyncio.Queue()

        def emit(event: object) -> None:
            self._record_notification(event)
            queue.put_nowait(event)

        self._emit = emit

        async def guarded() -> None:
            try:
                await work(emit)
            finally:
                queue.put_nowait(_END)

        # The work runs in its own task so cancel() can interrupt it and it still reports how it ended.
        task = asyncio.create_task(guarded())
        self._task = task
        try:
            while True:
                event = await queue.get()
                if event is _END:
                    break
                yield event  # type: ignore[misc]
        finally:
            # Only this task: by now self._task may already be the next turn's.
            if not task.done():
                task.cancel()

    # -- the turn ---------------------------------------------------------------------------

    async def _turn(self, prompt: str, emit: Callable[[object], None], *, resend: bool = False) -> None:
        turn_id = random_hex(12)
        finished = False
        turn_usage = Usage()
        tool_count = 0
        assembler = ReplyAssembler()
        started = time.monotonic()
        try:
            if not resend:
                user = Message.user(prompt)
                # Recorded (and fsynced) before anything that can fail: the user's words are never lost.
                self._record(user, durable=True)
                self.history.append(user)
            emit(TurnStarted(turn_id=turn_id, prompt=prompt))
            if not resend or self.history[-1].role == "user":
                for observer in self.observers:
                    observer.on_turn_start(prompt, self.history)
            # A retried prompt was submitted (and passed its hooks) already.
            blocked = None if resend else await self._prompt_hooks(prompt, emit)
            if blocked:
                self._record_system("hook_blocked", {"reason": blocked})
                emit(TurnFailed(turn_id=turn_id, message=f"A UserPromptSubmit hook blocked this prompt: {blocked}", error_kind="hook"))
                return
            self.compaction.skip_auto = False
            requests = overflows = 0
            while True:
                stop = self._over_budget(requests, started)
                if stop:
                    self._record_system("turn_stopped", {"reason": stop})
                    emit(TurnFailed(turn_id=turn_id, message=stop, error_kind="budget"))
                    return
                requests += 1
                for observer in self.observers:
                    await observer.before_request(requests)
                try:
                    reply = await self._request(assembler, emit)
                except LLMError as error:
                    if error.kind != "context_length" or self.compactor is None:
                        raise
                    overflows += 1
                    if overflows > MAX_OVERFLOW_COMPACTIONS:
                        raise LLMError(OVERFLOW_ADVICE.format(n=MAX_OVERFLOW_COMPACTIONS), kind="context_length") from None
                    # The server refused the request as too long: compact and send it again.
                    compaction = await self.compaction.compact(emit, trigger="overflow", forced=True)
                    if not compaction.ok:
                        raise LLMError(OVERFLOW_STUCK.format(error=error.message, compaction=compaction.message), kind="context_length") from None
                    continue
                if reply.usage is not None:
                    turn_usage = turn_usage + reply.usage
                emit(UsageUpdated(last=reply.usage or Usage(), turn_total=turn_usage, context_window=self.context_window))
                if reply.interrupted:
                    # Half an answer is not an answer: kept and shown as interrupted, never acted on.
                    emit(TurnFailed(turn_id=turn_id, message=interrupted_answer(self.provider.base_url), error_kind="interrupted"))
                    return
                if not reply.message.tool_calls:
                    if reply.finish_reason == "length":
                        emit(Notice(level="warning", text=f"The answer was cut off: the model reached its output-token limit ({SETTING} raises it)."))
                    finished = True
                    emit(TurnFinished(turn_id=turn_id, result=reply.message.content, usage=turn_usage, tool_calls=tool_count))
                    return
                self._cut_reply = reply.finish_reason == "length"
                if notice := cut_notice(reply.finish_reason, reply.message.tool_calls, self._max_tokens):
                    emit(Notice(level="warning", text=notice))
                for call in reply.message.tool_calls:
                    tool_count += 1
                    await self._run_tool_call(call, emit)
        except asyncio.CancelledError:
            self._after_cancel(assembler)
            emit(TurnCancelled(turn_id=turn_id))
        except LLMError as error:
            emit(TurnFailed(turn_id=turn_id, message=error.message, error_kind=error.kind))
        except ContextError as error:
            emit(TurnFailed(turn_id=turn_id, message=str(error), error_kind="context"))
        except Exception as error:  # a bug must end the turn visibly, not hang the UI
            text = f"Internal error: {type(error).__name__}: {error}"
            emit(TurnFailed(turn_id=turn_id, message=text, error_kind="internal"))
        finally:
            for observer in self.observers:
                observer.on_turn_end(self.history, finished)
            await self._stop_hooks("finished" if finished else "stopped", emit)

    # -- compaction on request of the person --------------------------------------------------------

    async def compact(self, focus: str = "") -> AsyncIterator[Event]:
        """/compress [focus]: a forced summary compaction, run like a turn (cancellable)."""

        async def work(emit: Emit) -> None:
            if self.compactor is None:
                emit(Notice(level="error", text="Compaction needs a model endpoint."))
                return
            try:
                await self.compaction.compact(emit, trigger="manual", focus=focus, forced=True)
            except asyncio.CancelledError:
                emit(Notice(level="warning", text="Compaction cancelled; the conversation is unchanged."))

        async for event in self._drive(work):
            yield event

    def compact_fast(self) -> MicroOutcome | None:
        """/compress-fast: clear old tool results now, no model call."""
        return self.compaction.micro(None, force=True)

    async def _prompt_hooks(self, prompt: str, emit: Callable[[object], None]) -> str | None:
        if self.hooks is None:
            return None
        blocked = await self.hooks.prompt_submitted(prompt)
        self._hook_notices(emit)
        return blocked

    async def _stop_hooks(self, outcome: str, emit: Callable[[object], None]) -> None:
        if self.hooks is None:
            return
        try:
            await self.hooks.turn_stopped(outcome)
        except Exception:  # a hook never breaks a turn, not even its end
            return
        self._hook_notices(emit)

    def _hook_notices(self, emit: Callable[[object], None]) -> None:
        """Problems with hooks are said once, in the conversation and in the record."""
        for text in self.hooks.take_notices() if self.hooks is not None else []:
            self._record_system("hook_problem", {"message": text})
            emit(Notice(level="warning", text=text))

    def _over_budget(self, requests: int, started: float) -> str | None:
        limits = self.limits
        if requests >= limits.max_requests:
            return f"Stopped after {requests} model requests in one turn (the limit is {limits.max_requests})."
        if limits.max_messages is not None and len(self.history) >= limits.max_messages:
            return f"Stopped: the conversation reached {limits.max_messages} messages (the limit for this agent)."
        if limits.time_budget is not None and time.monotonic() - started >= limits.time_budget:
            return f"Stopped: the turn used its time budget of {limits.time_budget:g} s."
        return None

    async def _request(self, assembler: ReplyAssembler, emit: Callable[[object], None]) -> Completion:
        """One model call; its assistant message is in history and recorded when this returns."""
        assembler.reset()
        assembled = await self.compaction.prepare_request(emit)
        emit(ContextAssembled(request=assembled))
        request = assembled.to_chat_request()
        self._max_tokens = request.max_tokens or getattr(self.provider, "max_output_tokens", None)
        emit(RequestStarted(model=request.model or self.provider.model, message_count=len(request.messages)))
        async for piece in stream_with_retries(self.provider, request, self.retry):
            if isinstance(piece, TextPiece):
                emit(TextDelta(text=piece.text))
            elif isinstance(piece, ReasoningPiece):
                emit(ReasoningDelta(text=piece.text))
            elif isinstance(piece, RetryPiece):
                if piece.discard_partial:
                    assembler.reset()
                    emit(StreamReset(reason=piece.reason))
                emit(Retrying(attempt=piece.attempt, max_attempts=piece.max_attempts, delay=piece.delay, reason=piece.reason))
                continue
            assembler.add(piece)
        reply = Completion(
            message=assembler.message(), usage=assembler.usage, finish_reason=assembler.finish_reason, interrupted=assembler.interrupted
        )
        if reply.interrupted:
            # Tool calls of an unfinished answer may be cut anywhere: only the text is kept.
            reply.message.tool_calls = []
        # Committed: a later cancel must not record this text a second time as a partial reply.
        assembler.reset()
        self.history.append(reply.message)
        self._record(reply.message, usage=reply.usage)
        if reply.interrupted:
            self._record_system("answer_interrupted", {"chars": len(reply.message.content)})
        if reply.usage is not None:
            self.last_usage = reply.usage
            self.session_usage = self.session_usage + reply.usage
        self.last_response_at = time.time()
        self.assembler.observe(assembled, reply.usage)
        if self.compactor is not None:
            self.compactor.observe(assembled.total_tokens, reply.usage.prompt_tokens if reply.usage else None)
        emit(AssistantMessage(message=reply.message, finish_reason=reply.finish_reason))
        return reply

    async def _run_tool_call(self, call: ToolCall, emit: Callable[[object], None]) -> None:
        try:
            await self._tool_call(call, emit)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # A failing guard, hook or permission check ends this call in words the model reads, not the turn.
            if not any(m.role == "tool" and m.tool_call_id == call.id for m in self.history[-1:]):
                text = f"Error: this {call.name} call could not be checked or run ({type(exc).__name__}: {exc}). The turn goes on."
                self._finish_tool(call, text, "error", f"{call.name} · internal error", emit)

    async def _tool_call(self, call: ToolCall, emit: Callable[[object], None]) -> None:
        tool = self.tools.get(call.name)
        if tool is None:
            available = ", ".join(self.tools.names())
            self._finish_tool(call, f"Unknown tool '{call.name}'. Available tools: {available}.", "error", "unknown tool", emit)
            return
        try:
            args = call.parsed_arguments()
        except ValueError as exc:
            text = cut_for_model(call, self._max_tokens) if self._cut_reply else f"Error: {exc}. Call the tool again with valid JSON arguments."
            self._finish_tool(call, text, "error", "cut off at the output limit" if self._cut_reply else "invalid arguments", emit)
            return
        summary = _safe(lambda: tool.summarize(args), call.name)
        invalid = invalid_characters(args) if isinstance(args, dict) else None
        if invalid:
            self._finish_tool(call, f"Error: {invalid}.", "error", f"{summary} · invalid characters", emit)
            return
        for observer in self.observers:
            refusal = observer.guard_tool(call, tool, args, self.tool_context)
            if refusal:
                self._finish_tool(call, refusal, "rejected", f"{summary} · refused", emit)
                return
        verdict = await self.hooks.before_tool(call, args) if self.hooks is not None else None
        self._hook_notices(emit)
        if verdict is not None and verdict.decision == "deny":
            reason = verdict.reason or "no reason given"
            self._finish_tool(call, f"A PreToolUse hook denied this call: {reason}.", "rejected", f"{summary} · denied by a hook", emit)
            return
        decision, reason = self.policy.decide(tool, args)
        if verdict is not None and verdict.decision == "ask" and decision is PermissionDecision.ALLOW:
            decision = PermissionDecision.ASK
        if decision is PermissionDecision.DENY:
            self._finish_tool(call, f"Permission denied: {reason}.", "rejected", f"{summary} · denied", emit)
            return
        if decision is PermissionDecision.ASK and not self.interactive:
            self._finish_tool(call, _needs_approval(reason), "rejected", f"{summary} · needs approval", emit)
            return
        if decision is PermissionDecision.ASK:
            answer = await self._ask(call, tool, args, summary, emit, reason)
            if answer is Decision.REJECT:
                self._finish_tool(call, "The user rejected this tool call.", "rejected", f"{summary} · rejected", emit)
                return
            if answer is Decision.ALWAYS:
                self.policy.allow_for_session(tool, args)
        # A call allowed on the program's own authority (a skill's grant) runs read-only, in the sandbox.
        unasked = decision is PermissionDecision.ALLOW and _safe(lambda: self.policy.unasked(tool, args), True)
        emit(ToolCallStarted(call=call, summary=summary))
        result = await self._execute(tool, args, replace(self.tool_context, read_only_shell=True) if unasked else None)
        if result.file_change is not None and not result.is_error:
            # Before the result, so a rewind finds what the file was (app.core.session.rewind_undo).
            self._record_system(SUBTYPE_FILE_CHANGE, {"toolCallId": call.id, "tool": call.name, **result.file_change.to_payload()})
        for observer in self.observers:
            observer.on_tool_ran(call, args)
        status = "error" if result.is_error else "ok"
        if self.hooks is not None:
            await self.hooks.after_tool(call, args, result.output, status)
            self._hook_notices(emit)
        line = f"{summary} · {result.summary}" if result.summary else summary
        self._finish_tool(call, result.output, status, line, emit, images=list(result.images))

    async def _ask(self, call: ToolCall, tool: Tool, args: dict, summary: str, emit: Callable[[object], None], reason: str = "") -> Decision:
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        detail = _safe(lambda: tool.detail(args, self.tool_context), summary)
        always = _safe(lambda: self.policy.always_preview(tool, args), [])
        emit(ApprovalNeeded(call=call, summary=summary, detail=detail, tool_kind=tool.kind.value, future=future, reason=reason, always=always))
        try:
            return await future
        except asyncio.CancelledError:
            if not future.done():
                future.cancel()
            raise

    async def _execute(self, tool: Tool, args: dict, context: ToolContext | None = None) -> ToolResult:
        try:
            return await run_tool(tool, args, context or self.tool_context)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool bug ends this call visibly, not the whole turn
            return ToolResult(output=f"Internal error in {tool.name}: {type(exc).__name__}: {exc}", is_error=True, summary="internal error")

    def _finish_tool(self, call: ToolCall, output: str, status: str, summary: str, emit: Callable[[object], None], *, images: list[ImagePart] | None = None) -> None:
        result = Message.tool_result(call, output, is_error=status != "ok", images=images)
        self.history.append(result)
        self._record(result)
        emit(ToolCallFinished(call=call, status=status, output=output, summary=summary))

    def _after_cancel(self, assembler: ReplyAssembler) -> None:
        """Leave history and record valid to resend after an interrupted turn."""
        if assembler.text:
            # What the person already saw stays in the conversation.
            partial = Message(role="assistant", content="".join(assembler.text))
            self.history.append(partial)
            self._record(partial)
        for result in close_dangling_tool_calls(self.history, CANCELLED_RESULT):
            self.history.append(result)
            self._record(result)
        self._record_system("turn_cancelled", {})

    def _record(self, message: Message, *, usage: Usage | None = None, durable: bool = False) -> None:
        if self.recorder is not None:
            model = self.provider.model if message.role == "assistant" else None
            try:
                self.recorder.append_message(message, usage=usage, model=model, durable=durable)
            except OSError as exc:
                self._record_failed(exc)
                return
            self._record_problem = ""

    def _record_failed(self, exc: OSError) -> None:
        """A record that cannot be written is said once (until a write works again); the turn goes on."""
        text = str(exc) if isinstance(exc, RecordWriteError) else f"Could not save the session record: {exc}"
        if self._record_problem:
            return
        self._record_problem = text
        if self._emit is not None:
            self._emit(Notice(level="error", text=text))

    def _record_notification(self, event: object) -> None:
        """Errors and warnings the person is shown during a turn go into the record too."""
        if isinstance(event, Notice) and event.level in ("warning", "error"):
            payload: dict = {"level": event.level, "message": event.text}
        elif isinstance(event, TurnFailed):
            payload = {"level": "error", "message": event.message, "kind": event.error_kind}
        else:
            return
        try:
            self._record_system(SUBTYPE_NOTIFICATION, payload)
        except OSError:
            pass  # the person still sees it; a full disk must not also stop the turn's events

    def _record_system(self, subtype: str, payload: dict) -> None:
        if self.recorder is not None:
            try:
                self.recorder.append_system(subtype, payload)
            except OSError as exc:
                self._record_failed(exc)


_T = TypeVar("_T")


def _safe(build: Callable[[], _T], fallback: _T) -> _T:
    try:
        return build()
    except Exception:
        return fallback
