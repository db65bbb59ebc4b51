"""The typed event contract: every event of a run, from hermes' callback to the page.

Node events (`node_stream`, a discriminated union on `kind`) are emitted by the bridge
without `runId`/`nodeId`; the API adds them with `for_run` before publishing. Run-level events
(`context_compacted`, `workflow_complete`, `workflow_error`) and the bridge's `run_end` are
models of their own. `EVENT` is each model's SSE `event:` name. `wire()` gives the JSON body
(camelCase, unset optional fields left out) exactly as docs/contracts.md describes it.

It imports pydantic and the protocol only: the bridge shares it with the API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal, Self, TypeAlias

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter
from pydantic.alias_generators import to_camel

from agentchat.protocol.status import RunStatus
from agentchat.protocol.usage import Usage

NODE_ID = "agent"
NODE_STREAM = "node_stream"
CONTEXT_COMPACTED = "context_compacted"
WORKFLOW_COMPLETE = "workflow_complete"
WORKFLOW_ERROR = "workflow_error"
RUN_END = "run_end"
TERMINAL_EVENTS = frozenset({WORKFLOW_COMPLETE, WORKFLOW_ERROR})

_BRIDGE_ENDS = (RunStatus.SUCCESS, RunStatus.FAILED, RunStatus.STOPPED)


def _bridge_end(status: RunStatus) -> RunStatus:
    if status not in _BRIDGE_ENDS:
        raise ValueError(f"a bridge ends a turn {', '.join(_BRIDGE_ENDS)}, not {status}")
    return status


# How the bridge ends a turn (INTERRUPTED and RUNNING are the API's words only).
BridgeEndStatus = Annotated[RunStatus, AfterValidator(_bridge_end)]


class EventModel(BaseModel):
    """camelCase on the wire, snake_case in Python; unknown fields kept (added later)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", frozen=True
    )
    EVENT: ClassVar[str]
    _event_id: int | None = PrivateAttr(default=None)

    @property
    def event_id(self) -> int | None:
        """The SSE id it arrived with (the bridge's per-run number); never on the wire."""
        # The private dict, not `self._event_id`: that goes through pydantic's __getattr__,
        # a few microseconds read once per event of every run.
        private = self.__pydantic_private__
        return None if private is None else private.get("_event_id")

    def with_event_id(self, event_id: int | None) -> Self:
        """Tag the event with the id it arrived with (set once, by the reader)."""
        self._event_id = event_id
        return self

    def wire(self) -> dict[str, Any]:
        """The JSON body as a dict (for a bus that stores dicts)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    def wire_json(self) -> str:
        """The JSON body, encoded once."""
        return self.model_dump_json(by_alias=True, exclude_none=True)

    def rewritten(self, rewrite: Callable[[dict[str, Any]], Any]) -> Self:
        """A copy whose JSON body went through `rewrite` (e.g. masking a secret)."""
        return self.model_validate(rewrite(self.wire()))


# ── metas ───────────────────────────────────────────────────────────────────────────────


class McpOrigin(EventModel):
    """The MCP server and its own tool name behind an `mcp__<server>__<tool>` call."""

    server: str
    tool: str


class ToolCallMeta(EventModel):
    tool_call_id: str
    args: dict[str, Any] = Field(default_factory=dict)
    mcp: McpOrigin | None = None


class ToolMedia(EventModel):
    """An image, a sound or a file an MCP tool returned (hermes cached it on the agent's host):
    `data` is its bytes in base64 when they are small enough to travel, else absent."""

    kind: Literal["image", "audio", "file"]
    name: str
    mime: str = ""
    size: int = 0
    data: str | None = None


class ToolResultMeta(EventModel):
    """`durationMs` and `isError` as hermes measured and judged them (`timedBy: "hermes"`, from
    its tool progress callback), else the bridge's own start/complete timing (no `timedBy`)."""

    tool_call_id: str
    duration_ms: int | None = None
    is_error: bool | None = None
    timed_by: Literal["hermes"] | None = None
    mcp: McpOrigin | None = None
    media: list[ToolMedia] | None = None


class Approval(EventModel):
    """What a pause for a dangerous command asks the person to allow; with `mcp`, a call of an
    MCP server's tool (`command` is then the tool's name and its arguments)."""

    command: str
    description: str = ""
    mcp: McpOrigin | None = None


class Pause(EventModel):
    """A run waiting for the user: the clarify_request meta and `/state`'s pendingClarify.
    With `approval` set it asks to allow a dangerous command; `choices` are then
    APPROVAL_CHOICES (allow once, allow for this chat, deny)."""

    clarify_id: str
    question: str
    choices: list[str] = Field(default_factory=list)
    approval: Approval | None = None


APPROVAL_CHOICES = ("Allow once", "Allow for this chat", "Deny")


class StepMeta(EventModel):
    iteration: int
    max_iterations: int


class ClarifyAnsweredMeta(EventModel):
    clarify_id: str
    answer: str
    timed_out: bool | None = None


# ── node events (SSE `node_stream`) ─────────────────────────────────────────────────────


class NodeBase(EventModel):
    EVENT: ClassVar[str] = NODE_STREAM
    run_id: str | None = None
    node_id: str | None = None
    content: str = ""

    def for_run(self, run_id: str) -> Self:
        """This event as the page receives it: with `runId` and `nodeId`."""
        return self.model_copy(update={"run_id": run_id, "node_id": NODE_ID})

    def page_body(self, run_id: str) -> dict[str, Any]:
        """`for_run(run_id).wire()`, without the copy (it runs once per published event)."""
        return {"runId": run_id, "nodeId": NODE_ID, **self.wire()}


class Thinking(NodeBase):
    kind: Literal["thinking"] = "thinking"


class Status(NodeBase):
    kind: Literal["status"] = "status"


class AnswerDelta(NodeBase):
    kind: Literal["answer_delta"] = "answer_delta"


class Interim(NodeBase):
    """Text the model wrote before its tool calls (it streamed as answer_delta): it belongs
    here, between the calls, not in the answer."""

    kind: Literal["interim"] = "interim"


class Step(NodeBase):
    """The agent starts model call `iteration` of at most `max_iterations` in this turn."""

    kind: Literal["step"] = "step"
    meta: StepMeta


class Steered(NodeBase):
    """A person's message handed to the running agent (it reads it with the next tool result)."""

    kind: Literal["steered"] = "steered"


class ToolCall(NodeBase):
    kind: Literal["tool_call"] = "tool_call"
    tool_name: str
    meta: ToolCallMeta


class ToolResult(NodeBase):
    kind: Literal["tool_result"] = "tool_result"
    tool_name: str
    meta: ToolResultMeta


class TodoUpdate(NodeBase):
    """`content` is the whole todo list as JSON `[{id, content, status}]`."""

    kind: Literal["todo_update"] = "todo_update"
    tool_name: str | None = "todo"


class ClarifyRequest(NodeBase):
    kind: Literal["clarify_request"] = "clarify_request"
    tool_name: str | None = "clarify"
    meta: Pause


class ClarifyAnswered(NodeBase):
    kind: Literal["clarify_answered"] = "clarify_answered"
    tool_name: str | None = "clarify"
    meta: ClarifyAnsweredMeta


NodeEvent: TypeAlias = Annotated[
    Thinking
    | Status
    | AnswerDelta
    | Interim
    | Step
    | Steered
    | ToolCall
    | ToolResult
    | TodoUpdate
    | ClarifyRequest
    | ClarifyAnswered,
    Field(discriminator="kind"),
]
NodeKind = Literal[
    "thinking",
    "status",
    "answer_delta",
    "interim",
    "step",
    "steered",
    "tool_call",
    "tool_result",
    "todo_update",
    "clarify_request",
    "clarify_answered",
]
NODE_EVENT: TypeAdapter[NodeEvent] = TypeAdapter(NodeEvent)


# ── run-level events ────────────────────────────────────────────────────────────────────


class ContextCompacted(EventModel):
    """The agent compressed earlier context; the API adds `runId` and `summaryMessageId`."""

    EVENT: ClassVar[str] = CONTEXT_COMPACTED
    run_id: str | None = None
    summary: str = ""
    summary_message_id: int | None = None


class WorkflowComplete(EventModel):
    EVENT: ClassVar[str] = WORKFLOW_COMPLETE
    run_id: str
    message_id: int
    final_text: str
    usage: Usage | None = None


class WorkflowError(EventModel):
    EVENT: ClassVar[str] = WORKFLOW_ERROR
    run_id: str
    message_id: int
    message: str
    stopped: bool = False
    partial_text: str | None = None
    # the answer was cut by a server restart or shutdown (stored INTERRUPTED, text kept)
    interrupted: bool | None = None


class RunEnd(EventModel):
    """The bridge's last event of a turn (bridge wire only)."""

    EVENT: ClassVar[str] = RUN_END
    status: BridgeEndStatus
    final_text: str = ""
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)
    messages: list[dict[str, Any]] = Field(default_factory=list)
    compacted: bool = False
    # hermes approval keys allowed "for this chat" in this session (kept by the API, resent)
    approvals: list[str] = Field(default_factory=list)


PageEvent: TypeAlias = NodeEvent | ContextCompacted | WorkflowComplete | WorkflowError
BridgeEvent: TypeAlias = NodeEvent | ContextCompacted | RunEnd
TerminalEvent: TypeAlias = WorkflowComplete | WorkflowError


def workflow_complete(
    run_id: str, message_id: int, final_text: str, usage: Usage | None = None
) -> WorkflowComplete:
    """The one place a success end is built."""
    return WorkflowComplete(
        run_id=run_id, message_id=message_id, final_text=final_text, usage=usage or None
    )


def workflow_error(
    run_id: str,
    message_id: int,
    message: str,
    *,
    stopped: bool = False,
    partial_text: str | None = None,
    interrupted: bool = False,
) -> WorkflowError:
    """The one place a failure, stop or interruption end is built."""
    return WorkflowError(
        run_id=run_id,
        message_id=message_id,
        message=message or "the run ended",
        stopped=stopped,
        partial_text=partial_text,
        interrupted=interrupted or None,
    )


_BY_EVENT: dict[str, TypeAdapter[Any]] = {
    NODE_STREAM: NODE_EVENT,
    CONTEXT_COMPACTED: TypeAdapter(ContextCompacted),
    WORKFLOW_COMPLETE: TypeAdapter(WorkflowComplete),
    WORKFLOW_ERROR: TypeAdapter(WorkflowError),
    RUN_END: TypeAdapter(RunEnd),
}


class UnknownEvent(ValueError):
    """An SSE event name the contract does not define."""


def decode(event: str, data: str | bytes) -> PageEvent | RunEnd:
    """The typed event for an SSE `event:` name and its JSON `data` (validated)."""
    adapter = _BY_EVENT.get(event)
    if adapter is None:
        raise UnknownEvent(event)
    result: PageEvent | RunEnd = adapter.validate_json(data)
    return result


def from_wire(event: str, data: dict[str, Any]) -> PageEvent | RunEnd:
    """The typed event for an event name and its already-parsed JSON body."""
    adapter = _BY_EVENT.get(event)
    if adapter is None:
        raise UnknownEvent(event)
    result: PageEvent | RunEnd = adapter.validate_python(data)
    return result
