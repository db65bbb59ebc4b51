"""Whether the Redis of the event bus answers: checked before `serve` starts anything, and by
/api/health (a bus that does not answer streams nothing and loses no run: say so)."""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit

from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

CHECK_TIMEOUT_S = 2.0
# What a call to Redis raises when Redis does not answer (stalled, restarting, gone); not
# its refusals (a script error, out of memory), which a retry would only meet again.
# REDIS_DOWN: redis-py's own two (what the API answers 503 for); named here so that only the
# bus and cluster modules import redis.
REDIS_DOWN: tuple[type[Exception], ...] = (RedisConnectionError, RedisTimeoutError)
BUS_ERRORS: tuple[type[Exception], ...] = (*REDIS_DOWN, OSError)


def redis_problem(url: str) -> str | None:
    """Why Redis at `url` cannot be used, or None when it answers a PING."""
    try:
        client = Redis.from_url(
            url, socket_connect_timeout=CHECK_TIMEOUT_S, socket_timeout=CHECK_TIMEOUT_S
        )
    except ValueError as exc:  # its words name no part of the URL
        return f"Redis at {_where(url)} cannot be used: {exc}"
    try:
        client.ping()
    except (RedisError, OSError, ValueError) as exc:
        return f"Redis at {_where(url)} does not answer ({type(exc).__name__}: {exc})"
    finally:
        client.close()
    return None


async def redis_answers(client: AsyncRedis) -> bool:
    try:
        return bool(await client.ping())
    except (RedisError, OSError):
        return False


def _where(url: str) -> str:
    """Where Redis is, without a password: not the `user:password@` part, nor the query
    (redis-py takes `?password=`, as its docs write a Unix socket's URL)."""
    parts = urlsplit(url)
    place = parts.netloc.rpartition("@")[2] + parts.path
    if "@" in place or not _port_ok(parts):  # an unescaped `@`, `/` or `?` in a password
        return f"{parts.scheme}://…"
    return f"{parts.scheme}://{'…@' if '@' in parts.netloc else ''}{place}"


def _port_ok(parts: SplitResult) -> bool:
    try:
        parts.port  # noqa: B018 (it raises for a port that is not a number)
    except ValueError:
        return False
    return True
