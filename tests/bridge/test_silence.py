"""The silence watch and hermes' wait notices in our words (no hermes needed)."""

from __future__ import annotations

import threading

from agentchat.bridge.hermes.home import hermes_config
from agentchat.bridge.hermes.silence import SilenceWatch, watching
from agentchat.bridge.hermes.text import wait_notice
from agentchat.bridge.settings import BridgeSettings


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_model_output_resets_the_silence_and_other_callbacks_do_not() -> None:
    clock = Clock()
    watch = SilenceWatch(10, clock)
    clock.now = 6
    watch.saw("on_stream_delta")
    clock.now = 12
    for callback in ("on_status", "on_thinking", "on_step", "on_event"):
        watch.saw(callback)
    assert watch.silent_s() == 6 and not watch.overdue()
    clock.now = 16.5
    assert watch.overdue()


def test_a_running_tool_is_not_silence() -> None:
    clock = Clock()
    watch = SilenceWatch(10, clock)
    watch.saw("on_tool_start")
    watch.saw("on_tool_start")
    clock.now = 100
    watch.saw("on_tool_complete")
    assert watch.silent_s() == 0
    clock.now = 200
    watch.saw("on_tool_complete")
    clock.now = 205
    assert watch.silent_s() == 5


def test_watching_interrupts_once_when_overdue() -> None:
    calls: list[int] = []
    interrupted = threading.Event()
    watch = SilenceWatch(0.05)

    def interrupt() -> None:
        calls.append(1)
        interrupted.set()

    with watching(watch, interrupt):
        assert interrupted.wait(5)
    assert watch.gave_up and calls == [1]


def test_the_time_before_the_turn_starts_is_not_the_models_silence() -> None:
    """The watch is made before the agent is prepared (a first agent, MCP servers: seconds on
    a busy machine); a CI run's 2 s limit ended a turn that had not asked the model yet."""
    clock = Clock()
    watch = SilenceWatch(2, clock)
    clock.now = 5  # preparing the agent
    with watching(watch, lambda: None):
        assert watch.silent_s() == 0 and not watch.overdue()
        clock.now = 7.5
        assert watch.overdue()


def test_watching_leaves_a_lively_turn_alone() -> None:
    watch = SilenceWatch(60)
    with watching(watch, lambda: None):
        pass
    assert not watch.gave_up


def test_hermes_wait_notices_become_ours() -> None:
    waiting = (
        "⏳ waiting on gpt-x — 60s with no output yet (provider may be slow or overloaded, "
        "or the model is thinking; auto-reconnect at 900s)"
    )
    assert wait_notice(waiting, 300) == (
        "Waiting for the model: no output for 60 s; the answer stops after 300 s without output"
    )
    assert wait_notice("⚠ no output from provider for 180s — reconnecting...", None) == (
        "Waiting for the model: no output for 180 s"
    )
    assert wait_notice("pondering...", 300) is None


def test_the_silence_limit_defaults_to_the_request_timeout_and_hermes_waits_past_it() -> None:
    default = BridgeSettings()
    assert default.silence_limit_s == default.request_timeout_s == 300
    assert hermes_config(default)["providers"]["custom"]["request_timeout_seconds"] == 330
    own = BridgeSettings(request_timeout_s=600, silence_timeout_s=60)
    assert own.silence_limit_s == 60
    assert own.hermes_request_timeout_s == 600
