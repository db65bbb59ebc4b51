"""The `agentchat` command: serve, migrate, bridge, scripted-llm."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from agentchat.core.settings import Settings

app = typer.Typer(no_args_is_help=True, add_completion=False)

HostOpt = Annotated[str, typer.Option(help="Interface to bind")]


# Settings whose values are never echoed: they may carry a password.
_UNSHOWN = {
    "database_url",
    "redis_url",
    "bridge_url",
    "bridge_secret",
    "auth_token",
    "secret_key",
    "oidc_client_secret",
    "s3_secret_access_key",
    "s3_endpoint_url",
}


def _settings(command: str, **overrides: object) -> Settings:
    """The settings, flags over variables; one line per bad value and exit 2 (pydantic's
    report was a 50-line traceback)."""
    from pydantic import ValidationError

    from agentchat.core.settings import Settings

    for key, value in overrides.items():
        if value is not None:
            os.environ[f"AGENTCHAT_{key.upper()}"] = str(value)
    try:
        return Settings()
    except ValidationError as exc:
        for error in exc.errors():
            typer.echo(f"agentchat {command}: {_bad_value(error, _given(**overrides))}", err=True)
        raise typer.Exit(2) from exc


def _bad_value(error: Any, flags: set[str]) -> str:
    field = str(error["loc"][0]) if error["loc"] else "settings"
    shown = "" if field in _UNSHOWN else f"={error['input']!r}"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{_setting_name(field, flags)}{shown}: {message}"


def _setting_name(field: str, flags: set[str]) -> str:
    """How the operator gave the setting: its flag when given as one, else its variable."""
    return f"--{field.replace('_', '-')}" if field in flags else f"AGENTCHAT_{field.upper()}"


def _machine_ready(settings: Settings, flags: set[str], command: str, *, listen: bool) -> None:
    """One line and exit 2 when the data folder cannot be written or the address is taken,
    before anything is migrated or started."""
    from agentchat.local_stack.start_checks import data_dir_problem, listen_problem

    problems = [("data_dir", data_dir_problem(settings.data_dir))]
    if listen and (taken := listen_problem(settings.host, settings.port)):
        problems.append(taken)
    for field, problem in problems:
        if problem:
            typer.echo(f"agentchat {command}: {_setting_name(field, flags)}: {problem}", err=True)
            raise typer.Exit(2)


def _given(**overrides: object) -> set[str]:
    return {key for key, value in overrides.items() if value is not None}


def _version(value: bool) -> None:
    if value:
        from agentchat import __version__

        typer.echo(f"agentchat {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version"),
    ] = False,
) -> None:
    """Agent Chat: a self-hosted chat page for Hermes Agent."""


def _schema(settings: object, *, migrate: bool, command: str) -> None:
    """Bring the schema up to date (or check it); one clear line and exit 2 when it cannot."""
    from agentchat.core.settings import Settings
    from agentchat.migrations.on_start import SchemaProblem, prepare_schema
    from agentchat.private_files import private_dir

    assert isinstance(settings, Settings)
    private_dir(settings.data_dir)  # chats, memory, keys: only this user
    try:
        prepare_schema(settings.resolved_database_url, migrate=migrate, say=_say(command))
    except SchemaProblem as exc:
        typer.echo(f"agentchat {command}: {exc}", err=True)
        raise typer.Exit(2) from exc


def _redis_reachable(settings: object) -> None:
    """With AGENTCHAT_REDIS_URL: one clear line and exit 2 when Redis does not answer, before
    anything is started (it printed a traceback, exited 3 and left its bridge running)."""
    from agentchat.core.settings import Settings
    from agentchat.events.redis_health import redis_problem

    assert isinstance(settings, Settings)
    problem = redis_problem(settings.redis_url) if settings.redis_url else None
    if problem:
        typer.echo(f"agentchat serve: {problem}", err=True)
        raise typer.Exit(2)


def _say(command: str) -> Callable[[str], None]:
    return lambda line: typer.echo(f"agentchat {command}: {line}", err=True)


@app.command()
def migrate(
    data_dir: Annotated[Path | None, typer.Option()] = None,
    database_url: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Bring the database schema up to date (`serve` does it too, unless --no-migrate)."""
    settings = _settings("migrate", data_dir=data_dir, database_url=database_url)
    flags = _given(data_dir=data_dir, database_url=database_url)
    _machine_ready(settings, flags, "migrate", listen=False)
    _schema(settings, migrate=True, command="migrate")
    typer.echo("database is up to date")


# Flags default to None: an unset flag leaves the AGENTCHAT_* variable (or the default) in force.
def _report_fatal_signals(faulthandler: Any) -> None:
    """A fatal signal (SIGBUS, SIGSEGV) leaves its name and stacks in the log. Where stderr is
    no file (serve called in-process, as the tests' CLI runner does) the process's own is used."""
    import io

    for stream in (sys.stderr, sys.__stderr__):
        try:
            faulthandler.enable(file=stream)
            return
        except (AttributeError, ValueError, io.UnsupportedOperation):
            continue


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface to bind (default 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default 8000)")] = None,
    data_dir: Annotated[Path | None, typer.Option()] = None,
    database_url: Annotated[str | None, typer.Option()] = None,
    bridge_url: Annotated[str | None, typer.Option()] = None,
    redis_url: Annotated[str | None, typer.Option()] = None,
    insecure_public: Annotated[
        bool, typer.Option("--insecure-public", help="Allow a non-loopback bind without a token")
    ] = False,
    migrate: Annotated[
        bool | None,
        typer.Option(
            "--migrate/--no-migrate",
            help="Bring the schema up to date at start, under a lock (default: migrate)",
        ),
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, help="API processes; over 1 needs PostgreSQL/MySQL and Redis")
    ] = 1,
) -> None:
    """Serve the API and the page."""
    import faulthandler

    overrides: dict[str, object] = {
        "host": host,
        "port": port,
        "data_dir": data_dir,
        "database_url": database_url,
        "bridge_url": bridge_url,
        "redis_url": redis_url,
        "insecure_public": insecure_public or None,
        "migrate": migrate,
    }
    settings = _settings("serve", **overrides)
    _report_fatal_signals(faulthandler)
    # Imported once the settings are good: a bad value is refused without loading the app.
    from agentchat.web.bind_rules import (
        UnsafeBind,
        accounts_bind_note,
        bind_note,
        check_bind,
        is_loopback,
    )

    # With accounts every request signs in as a person (looked at without creating anything).
    accounts = not is_loopback(settings.host) and _accounts_in(settings.resolved_database_url)
    try:
        check_bind(settings.host, settings, accounts)
    except UnsafeBind as exc:
        typer.echo(f"agentchat serve: {exc}", err=True)
        raise typer.Exit(2) from exc
    _machine_ready(settings, _given(**overrides), "serve", listen=True)
    from agentchat.web.own_user import own_user_note

    notes = (
        bind_note(settings.host, settings),
        accounts_bind_note(settings.host, settings, accounts),
        None if accounts else own_user_note(settings),
    )
    for note in notes:
        if note:
            typer.echo(f"agentchat serve: {note}", err=True)
    _redis_reachable(settings)
    _schema(settings, migrate=settings.migrate, command="serve")
    if workers > 1:
        _serve_workers(settings, settings.host, settings.port, workers)
        return
    import uvicorn

    from agentchat.app import create_served_app
    from agentchat.web.header_timeout import HeaderTimeoutProtocol

    uvicorn.run(
        create_served_app(settings),
        host=settings.host,
        port=settings.port,
        log_level="info",
        proxy_headers=False,  # the served app believes X-Forwarded-* itself (web.own_user)
        http=HeaderTimeoutProtocol,  # a request's headers have a deadline (slowloris)
        # On SIGTERM open streams get the runs' grace, then are cut and the runs stored.
        timeout_graceful_shutdown=max(1, round(settings.shutdown_grace_s)),
    )


def _accounts_in(database_url: str) -> bool:
    from agentchat.accounts.users import accounts_in

    return accounts_in(database_url)


def _serve_workers(settings: object, host: str, port: int, workers: int) -> None:
    """N uvicorn workers built by the app factory; the local bridge and the scripted model
    start once, here, and the workers are told where they are."""
    import uvicorn

    from agentchat.core.database import Database
    from agentchat.core.settings import Settings
    from agentchat.lifecycle import prepare_data
    from agentchat.local_stack import LocalStack, several_workers_problem, worker_env
    from agentchat.web.header_timeout import HeaderTimeoutProtocol

    assert isinstance(settings, Settings)
    problem = several_workers_problem(settings)
    if problem:
        typer.echo(f"agentchat serve: {problem}", err=True)
        raise typer.Exit(2)
    stack = LocalStack(settings)
    stack.start()
    try:
        database = Database(settings.resolved_database_url)
        prepare_data(settings, database, stack.scripted_url)  # once, before workers race
        database.dispose()
        os.environ.update(worker_env(stack))
        uvicorn.run(
            "agentchat.app:create_served_app",
            factory=True,
            workers=workers,
            host=host,
            port=port,
            log_level="info",
            proxy_headers=False,  # the served app believes X-Forwarded-* itself (web.own_user)
            http=HeaderTimeoutProtocol,
            timeout_graceful_shutdown=max(1, round(settings.shutdown_grace_s)),
        )
    finally:
        stack.stop()


users = typer.Typer(no_args_is_help=True, help="Accounts: add people, set passwords")
app.add_typer(users, name="users")

PasswordStdin = Annotated[
    bool,
    typer.Option("--password-stdin", help="Read the password from standard input (for scripts)"),
]


def _password(from_stdin: bool) -> str:
    """Asked twice without echo, or one line of standard input: never an argument, so it stays
    out of the shell's history and the process list."""
    import sys

    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return str(typer.prompt("Password", hide_input=True, confirmation_prompt=True))


def _accounts_database(command: str) -> object:
    from agentchat.core.database import Database

    settings = _settings(command)
    _machine_ready(settings, set(), command, listen=False)
    _schema(settings, migrate=True, command=command)
    return Database(settings.resolved_database_url)


@users.command("add")
def users_add(
    name: Annotated[str, typer.Argument(help="The user name")],
    admin: Annotated[bool, typer.Option("--admin", help="An administrator")] = False,
    password_stdin: PasswordStdin = False,
) -> None:
    """Add an account (the first is an administrator, and turns accounts on)."""
    from agentchat.accounts.cli_users import add_user
    from agentchat.core.database import Database
    from agentchat.protocol.errors import AppError

    database = _accounts_database("users add")
    assert isinstance(database, Database)
    hermes_home = _settings("users add").resolved_hermes_home
    try:
        line = add_user(database, name, _password(password_stdin), admin, hermes_home)
    except AppError as exc:
        typer.echo(f"agentchat users add: {exc.message}", err=True)
        raise typer.Exit(2) from exc
    finally:
        database.dispose()
    typer.echo(line)


@users.command("passwd")
def users_passwd(
    name: Annotated[str, typer.Argument(help="The user name")],
    password_stdin: PasswordStdin = False,
) -> None:
    """Set an account's password (its sign-in sessions end)."""
    from agentchat.accounts.cli_users import set_user_password
    from agentchat.core.database import Database
    from agentchat.protocol.errors import AppError

    database = _accounts_database("users passwd")
    assert isinstance(database, Database)
    try:
        line = set_user_password(database, name, _password(password_stdin))
    except AppError as exc:
        typer.echo(f"agentchat users passwd: {exc.message}", err=True)
        raise typer.Exit(2) from exc
    finally:
        database.dispose()
    typer.echo(line)


@users.command("list")
def users_list() -> None:
    """The accounts: name, role, disabled."""
    from agentchat.accounts.cli_users import list_lines
    from agentchat.core.database import Database

    database = _accounts_database("users list")
    assert isinstance(database, Database)
    try:
        for line in list_lines(database):
            typer.echo(line)
    finally:
        database.dispose()


@app.command("scripted-llm")
def scripted_llm(
    host: HostOpt = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8100,
) -> None:
    """Serve the deterministic, directive-driven OpenAI-compatible model."""
    from agentchat.scripted_llm.server import main

    main(host=host, port=port)


@app.command()
def bridge(
    host: HostOpt = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8200,
    uds: Annotated[
        Path | None,
        typer.Option(help="Listen on this Unix socket (0600) instead of --host/--port"),
    ] = None,
    hermes_home: Annotated[Path | None, typer.Option()] = None,
    skills_dir: Annotated[Path | None, typer.Option()] = None,
    secret_stdin: Annotated[
        bool, typer.Option("--secret-stdin", help="Read the shared secret from standard input")
    ] = False,
) -> None:
    """Serve the Hermes Bridge (the only process that imports hermes-agent)."""
    import sys

    from agentchat.bridge.server.clean_start import restart_clean_if_needed

    secret = sys.stdin.readline().strip() if secret_stdin else None
    restart_clean_if_needed(secret)
    # imported after the clean restart: a bridge started from a fuller environment would
    # otherwise import the server twice (0.5 s of CPU)
    from agentchat.bridge.server.main import main

    main(
        host=host,
        port=port,
        uds=uds,
        hermes_home=hermes_home,
        skills_dir=skills_dir,
        secret=secret,
    )


if __name__ == "__main__":
    app()
