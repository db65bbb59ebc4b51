"""Session search over titles and message content, on SQLite, PostgreSQL and MariaDB."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import update

from agentchat.chat import sessions
from agentchat.chat.search import search_words
from agentchat.chat.tables import ChatMessage
from agentchat.core.database import Database
from agentchat.migrations import downgrade, upgrade
from tests.chat.seed import add, new_session
from tests.support.databases import fresh_database_url


def _found(db: Database, q: str) -> set[int]:
    with db.session() as s:
        return {c.id for c in sessions.list_sessions(s, "ALL", q, 200, None).sessions}


def _chats(db: Database) -> dict[str, int]:
    lyon = new_session(db, "Trip planning")
    q = add(db, lyon, None, "USER", "What should I see in Lyon? Something about food.")
    add(db, lyon, q, "ASSISTANT", "Try the bouchons of Vieux-Lyon, then the Fourvière hill.")
    code = new_session(db, "Code review")
    add(db, code, None, "USER", "Why does my_function raise a KeyError?")
    untitled = new_session(db)
    add(db, untitled, None, "USER", "Recipes with aubergines")
    return {"lyon": lyon, "code": code, "untitled": untitled}


def test_words_inside_messages_are_found(any_database: Database) -> None:
    chats = _chats(any_database)
    assert _found(any_database, "bouchons") == {chats["lyon"]}
    assert _found(any_database, "Fourvière") == {chats["lyon"]}
    assert _found(any_database, "aubergines") == {chats["untitled"]}
    assert _found(any_database, "keyerror") == {chats["code"]}


def test_every_word_is_needed_and_each_is_a_prefix(any_database: Database) -> None:
    chats = _chats(any_database)
    assert _found(any_database, "Bouch hill") == {chats["lyon"]}
    assert _found(any_database, "bouchons aubergines") == set()
    assert _found(any_database, "LYON") == {chats["lyon"]}


def test_stopwords_are_searchable(any_database: Database) -> None:
    chats = _chats(any_database)
    assert _found(any_database, "about food") == {chats["lyon"]}


def test_titles_match_as_substrings_even_for_short_words(any_database: Database) -> None:
    chats = _chats(any_database)
    assert _found(any_database, "rip plan") == {chats["lyon"]}
    assert _found(any_database, "de r") == {chats["code"]}
    assert _found(any_database, "100%") == set()


def test_the_index_follows_updates_and_deletes(any_database: Database) -> None:
    chats = _chats(any_database)
    with any_database.session() as s:
        s.execute(
            update(ChatMessage)
            .where(ChatMessage.session_id == chats["untitled"])
            .values(content="Risotto with saffron")
        )
    assert _found(any_database, "aubergines") == set()
    assert _found(any_database, "saffron") == {chats["untitled"]}
    with any_database.session() as s:
        sessions.delete_session(s, sessions.get_session(s, chats["lyon"]))
    assert _found(any_database, "bouchons") == set()


def test_query_words_are_plain_words() -> None:
    assert search_words('"a" OR b* -c NEAR(x) :* & lyon\'s +Lyon') == ["near", "lyon"]
    assert search_words("ab cd") == []


async def test_the_list_route_searches_messages(
    client: httpx.AsyncClient, database: Database
) -> None:
    chats = _chats(database)
    r = await client.get("/api/chat/sessions", params={"q": "aubergine"})
    assert r.status_code == 200
    assert [s["id"] for s in r.json()["items"]] == [chats["untitled"]]


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql", "mariadb"])
def test_the_migration_downgrades_and_upgrades_again(dialect: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = fresh_database_url(dialect, tmp_path, tag=f"{_tag()}search")
    downgrade(url, "0002")
    upgrade(url)
    db = Database(url)
    try:
        chat = new_session(db, "x")
        add(db, chat, None, "USER", "pomegranate")
        assert _found(db, "pomegranate") == {chat}
    finally:
        db.dispose()


def _tag() -> str:
    from tests.support.databases import worker_tag

    return worker_tag() + "_"
