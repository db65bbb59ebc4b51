"""Checks of setting values that a type alone cannot express: the database, Redis and bridge
URLs and the model-host lists. Each raises ValueError with words an operator can act on, and
never repeats a password."""

from __future__ import annotations

from urllib.parse import urlsplit

from sqlalchemy import URL, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from agentchat.protocol.host_policy import unparsable_entries

_EXAMPLES = "e.g. postgresql+psycopg://user@host/db or mysql+pymysql://user@host/db"
# The bundled drivers, for URLs that name a database but no driver (as hosting panels print
# them). MariaDB is spoken as `mysql`: the migrations' MySQL column variants key on that name.
_PLAIN = {
    "postgres": "postgresql+psycopg",
    "postgresql": "postgresql+psycopg",
    "mysql": "mysql+pymysql",
    "mariadb": "mysql+pymysql",
}
_BACKENDS = ("sqlite", "postgresql", "mysql")
_REDIS_SCHEMES = ("redis", "rediss", "unix")
_BRIDGE_SCHEMES = ("http", "https", "http+unix")


def database_url(value: str) -> str:
    """`value` with the bundled driver filled in when it names none; ValueError when it is not
    a URL of a database we support with an installed driver."""
    url = _parsed(value)
    url = url.set(drivername=_PLAIN.get(url.drivername, url.drivername))
    if url.get_backend_name() == "mariadb":
        url = url.set(drivername=f"mysql+{url.drivername.partition('+')[2]}")
    if url.get_backend_name() not in _BACKENDS:
        raise ValueError(f"unknown kind of database {url.drivername!r} ({_EXAMPLES})")
    _driver_installed(url)
    _full_unicode(url)
    return url.render_as_string(hide_password=False)


def _parsed(value: str) -> URL:
    try:
        return make_url(value.strip())
    except (ArgumentError, ValueError):
        raise ValueError(f"not a database URL ({_EXAMPLES})") from None


def _driver_installed(url: URL) -> None:
    try:
        url.get_dialect().import_dbapi()
    except (NoSuchModuleError, ImportError):
        raise ValueError(
            f"the driver of {url.drivername!r} is not installed ({_EXAMPLES}, whose drivers are)"
        ) from None


def _full_unicode(url: URL) -> None:
    """MySQL's `utf8` is utf8mb3: an emoji in a chat would be refused or lost."""
    charset = url.query.get("charset")
    if url.get_backend_name() == "mysql" and charset not in (None, "utf8mb4"):
        raise ValueError(f"charset={charset} cannot hold every character: use utf8mb4 or omit it")


def redis_url(value: str) -> str:
    scheme = urlsplit(value.strip()).scheme
    if scheme not in _REDIS_SCHEMES:
        raise ValueError("not a Redis URL: write redis://host:6379/0 (or rediss://, unix://)")
    return value.strip()


def bridge_urls(value: str) -> str:
    """Comma-separated bridge URLs; one without a scheme (`host:8200`) was taken for a bridge
    that never answers, while health said ok."""
    entries = [entry.strip() for entry in value.split(",") if entry.strip()]
    if bad := [entry for entry in entries if not _bridge_url(entry)]:
        raise ValueError(
            f"not a bridge URL: {', '.join(map(_without_userinfo, bad))} (write "
            "http://host:port, or http+unix:// and the percent-encoded path of its socket)"
        )
    return value


def _without_userinfo(entry: str) -> str:
    """`user:password@host:8200` → `***@host:8200`: an error line must not carry a password."""
    return f"***@{entry.rpartition('@')[2]}" if "@" in entry else entry


def _bridge_url(entry: str) -> bool:
    parts = urlsplit(entry)
    return parts.scheme in _BRIDGE_SCHEMES and bool(parts.netloc)


def host_list(value: str) -> str:
    """A model-host list whose entries all mean something: an entry such as `10.0.0.0/33` was
    taken as a host name and so allowed or denied nothing."""
    if bad := unparsable_entries(value):
        raise ValueError(f"not a host, .suffix, address or network: {', '.join(bad)}")
    return value


def http_url(value: str) -> str:
    """An object store's URL: http(s), a host, no credentials (they have settings of their own)."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("not an http(s) URL (write e.g. https://minio.example:9000)")
    if parts.username or parts.password:
        raise ValueError("credentials go in AGENTCHAT_S3_ACCESS_KEY_ID and _SECRET_ACCESS_KEY")
    return value.strip().rstrip("/")
