"""How run events sit in Redis: key names, stream ids, entry fields and the Lua scripts.

Event N of a run is the stream entry `N-0`, one field `v` = `NAME JSON`. `finish()` without a
terminal event appends the marker `N-1` (field `f`), so `Last-Event-ID: N` maps to "entries
after `N-0`" and the marker still follows.
"""

from __future__ import annotations

import json
from typing import Any

from agentchat.events.model import BusEvent
from agentchat.protocol.sse import dump_json

StreamId = tuple[int, int]

START: StreamId = (0, 0)


def stream_key(prefix: str, run_id: str) -> str:
    # The braces are a Redis Cluster hash tag: a run's keys share a slot, as Lua needs.
    return f"{prefix}run:{{{run_id}}}"


def state_key(prefix: str, run_id: str) -> str:
    return f"{stream_key(prefix, run_id)}:state"


def parse_id(raw: bytes | str) -> StreamId:
    text = raw.decode() if isinstance(raw, bytes) else raw
    ms, _, seq = text.partition("-")
    return int(ms), int(seq or 0)


def format_id(sid: StreamId) -> str:
    return f"{sid[0]}-{sid[1]}"


def encode_payload(event: str, data: dict[str, Any]) -> str:
    """An entry's one field: `NAME JSON` (one field parses a third faster than two)."""
    return f"{event} {dump_json(data)}"


def decode_entry(sid: StreamId, fields: dict[bytes, bytes]) -> BusEvent | None:
    """The event stored at `sid`, or None for the finish marker."""
    payload = fields.get(b"v")
    if payload is None:
        return None
    event, _, data = payload.partition(b" ")
    raw = data.decode()  # kept: the streams send it as it is
    return BusEvent(sid[0], event.decode(), json.loads(raw), raw)


# KEYS: state, stream. ARGV: retention ms, live ttl ms, then (payload, terminal 0|1)*.
PUBLISH_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('UNKNOWN_RUN') end
if redis.call('HEXISTS', KEYS[1], 'finished') == 1 then
  return redis.error_reply('RUN_FINISHED')
end
local first = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0') + 1
local n = first - 1
local ttl = ARGV[2]
for i = 3, #ARGV, 2 do
  n = n + 1
  redis.call('XADD', KEYS[2], n .. '-0', 'v', ARGV[i])
  if ARGV[i + 1] == '1' then
    redis.call('HSET', KEYS[1], 'finished', '1')
    ttl = ARGV[1]
    break
  end
end
redis.call('HSET', KEYS[1], 'seq', n)
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return first
"""

# KEYS: state, stream. ARGV: retention ms. Idempotent; appends the marker `seq-1`.
FINISH_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'finished') == 1 then return 0 end
local n = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
redis.call('HSET', KEYS[1], 'finished', '1')
redis.call('XADD', KEYS[2], n .. '-1', 'f', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
"""
