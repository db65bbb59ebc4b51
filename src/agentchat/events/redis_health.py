"""Whether the Redis of the event bus answers: checked before `serve` starts anything, and by
/api/health (a bus that does not answer streams nothing and loses no run: say so)."""

from __future__ import annotations

from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import RedisError

CHECK_TIMEOUT_S = 2.0


def redis_problem(url: str) -> str | None:
    """Why Redis at `url` cannot be used, or None when it answers a PING."""
    client = Redis.from_url(
        url, socket_connect_timeout=CHECK_TIMEOUT_S, socket_timeout=CHECK_TIMEOUT_S
    )
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
    """The URL without its password."""
    head, at, tail = url.rpartition("@")
    return f"{head.split('://', 1)[0]}://…@{tail}" if at else url
