"""Session search: the title contains the query, or the messages contain all of its words.

Titles are matched as a substring (short words and any script work; a list page scans at most
the sessions, not their messages). Message content is matched with the database's own
full-text index (migration 0003): every word of three characters or more must start a word of
some message of the session. Shorter words are left to the title match: MariaDB does not
index them, and the same query must find the same sessions on every database. For the same
reason a RUNNING answer is not found by its words on any database: SQLite's and PostgreSQL's
indexes leave it out until it ends (migration 0006; PostgreSQL's index is partial, so the query
states its condition), MariaDB's FULLTEXT index holds it and the condition leaves it out.
"""

from __future__ import annotations

import re

from sqlalchemy import ColumnElement, Integer, TextClause, column, false, func, or_, select, text
from sqlalchemy.orm import Session

from agentchat.chat.tables import ChatMessage, ChatSession

MIN_WORD = 3
MAX_WORDS = 8
WORD_SPLIT = re.compile(r"[\W_]+")
# Written out, not a bound value: PostgreSQL's planner uses the partial index (migration 0006)
# only where the query's condition implies the index's WHERE, which a generic plan cannot prove
# of a parameter.
NOT_RUNNING = text("chat_message.status <> 'RUNNING'")


def session_matches(db: Session, query: str) -> ColumnElement[bool]:
    """A condition on ChatSession: the title contains `query` or the messages hold its words."""
    in_title = func.lower(ChatSession.title).like(_contains(query), escape="/")
    words = search_words(query)
    if not words:
        return in_title
    dialect = db.get_bind().dialect.name
    in_messages = select(ChatMessage.session_id).where(
        _content_matches(dialect, words), NOT_RUNNING
    )
    return or_(in_title, ChatSession.id.in_(in_messages))


def search_words(query: str) -> list[str]:
    """The words the full-text index can find: lowercase, three characters or more, unique."""
    words = [w for w in WORD_SPLIT.split(query.lower()) if len(w) >= MIN_WORD]
    return list(dict.fromkeys(words))[:MAX_WORDS]


def _content_matches(dialect: str, words: list[str]) -> ColumnElement[bool] | TextClause:
    """Every word as a prefix, in the expression the migration indexed."""
    if dialect == "sqlite":
        fts = " AND ".join(f'"{w}"*' for w in words)
        hits = text("SELECT rowid FROM chat_message_fts WHERE chat_message_fts MATCH :fts")
        return ChatMessage.id.in_(hits.bindparams(fts=fts).columns(column("rowid", Integer)))
    if dialect == "postgresql":
        tsquery = " & ".join(f"'{w}':*" for w in words)
        return text(
            "to_tsvector('simple'::regconfig, left(chat_message.content, 100000))"
            " @@ to_tsquery('simple'::regconfig, :tsquery)"
        ).bindparams(tsquery=tsquery)
    if dialect in ("mysql", "mariadb"):
        boolean = " ".join(f"+{w}*" for w in words)
        return text("MATCH (chat_message.content) AGAINST (:boolean IN BOOLEAN MODE)").bindparams(
            boolean=boolean
        )
    return false()


def _contains(q: str) -> str:
    escaped = q.lower().replace("/", "//").replace("%", "/%").replace("_", "/_")
    return f"%{escaped}%"
