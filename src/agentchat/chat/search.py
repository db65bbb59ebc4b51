"""Session search: the title contains the query, or the messages contain all of its words.

Titles are matched as a substring (short words and any script work; a list page scans at most
the sessions, not their messages), case-folded by `chat.folding` on both sides (the title's
copy in `title_key`), so every database compares the same text. Message content is matched
with the database's own full-text index (migration 0003): every word of three characters or
more must start a word of some message of the session. Shorter words are left to the title
match: MariaDB does not index them, and the same query must find the same sessions on every
database. For the same reason a RUNNING answer is not found by its words on any database:
SQLite's and PostgreSQL's indexes leave it out until it ends (migration 0006; PostgreSQL's
index is partial, so the query states its condition), MariaDB's FULLTEXT index holds it and
the condition leaves it out.

MariaDB's FULLTEXT parser keeps a word joined by `_` whole, where the others split it: the
query's under_score is asked there as that word or as its parts (a part alone, `score`, still
finds it on SQLite and PostgreSQL only).

Chinese, Japanese and Korean put no space between words, so to every index a whole sentence is
one word and a word inside it cannot be found by its start. A query word in those scripts is
matched as a substring of the content instead (of any length: 周末 is a word), through the
other words' index where the query has some, else by reading the messages.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Integer,
    String,
    TextClause,
    and_,
    bindparam,
    column,
    false,
    func,
    or_,
    select,
    text,
)
from sqlalchemy.orm import Session

from agentchat.chat.cjk_text import UNSPACED
from agentchat.chat.folding import fold
from agentchat.chat.snippets import snippet_around
from agentchat.chat.tables import ChatMessage, ChatSession

MIN_WORD = 3
MAX_WORDS = 8
WORD_SPLIT = re.compile(r"[\W_]+")
JOINED_SPLIT = re.compile(r"\W+")
# Written out, not a bound value: PostgreSQL's planner uses the partial index (migration 0006)
# only where the query's condition implies the index's WHERE, which a generic plan cannot prove
# of a parameter.
NOT_RUNNING = text("chat_message.status <> 'RUNNING'")


def session_matches(db: Session, query: str) -> ColumnElement[bool]:
    """A condition on ChatSession: the title contains `query` or the messages hold its words."""
    in_title = ChatSession.title_key.like(_contains(fold(query)), escape="/")
    words = search_words(query)
    if not words:
        return in_title
    in_messages = select(ChatMessage.session_id).where(*_message_conditions(db, words, query))
    return or_(in_title, ChatSession.id.in_(in_messages))


def matching_snippets(db: Session, session_ids: list[int], query: str) -> dict[int, str]:
    """For each of these sessions whose messages hold the query's words: the words around the
    first of them in the latest such message (two statements: which message, then its text)."""
    words = search_words(query)
    if not words or not session_ids:
        return {}
    latest = (
        select(ChatMessage.session_id, func.max(ChatMessage.id))
        .where(ChatMessage.session_id.in_(session_ids), *_message_conditions(db, words, query))
        .group_by(ChatMessage.session_id)
    )
    message_of = {message_id: session_id for session_id, message_id in db.execute(latest)}
    if not message_of:
        return {}
    texts = select(ChatMessage.id, ChatMessage.content).where(ChatMessage.id.in_(message_of))
    return {message_of[i]: snippet_around(content, words) for i, content in db.execute(texts)}


def _message_conditions(db: Session, words: list[str], query: str) -> list[Any]:
    """A message holds every word (and has ended: a RUNNING answer is not searched yet)."""
    dialect = db.get_bind().dialect.name
    indexed = [w for w in words if not UNSPACED.search(w)]
    conditions: list[Any] = [_contains_word(dialect, w) for w in words if w not in indexed]
    if indexed:
        conditions.insert(0, _content_matches(dialect, indexed, query))
    return [*conditions, NOT_RUNNING]


def search_words(query: str) -> list[str]:
    """The words to look for: lowercase, unique; three characters or more (what every full-text
    index can find), or any length in a script written without spaces."""
    words = WORD_SPLIT.split(query.lower())
    kept = [w for w in words if len(w) >= MIN_WORD or (w and UNSPACED.search(w))]
    return list(dict.fromkeys(kept))[:MAX_WORDS]


def joined_words(query: str) -> list[str]:
    """The query's words joined by `_` (under_score): one word to MariaDB's FULLTEXT parser,
    two to SQLite's and PostgreSQL's."""
    return [w.strip("_") for w in JOINED_SPLIT.split(query.lower()) if "_" in w.strip("_")]


def _boolean_terms(words: list[str], query: str) -> str:
    """MariaDB's boolean query: each word as a prefix; the parts of an under_score word either
    as that one word or each on its own, so it finds what the other databases find."""
    terms: list[str] = []
    used: set[str] = set()
    for joined in joined_words(query):
        parts = [p for p in joined.split("_") if p in words]
        if parts:
            used.update(parts)
            each = " ".join(f"+{p}*" for p in parts)
            terms.append(f"+({joined}* ({each}))")
    return " ".join([*terms, *(f"+{w}*" for w in words if w not in used)])


def _content_matches(
    dialect: str, words: list[str], query: str
) -> ColumnElement[bool] | TextClause:
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
        boolean = _boolean_terms(words, query)
        return text("MATCH (chat_message.content) AGAINST (:boolean IN BOOLEAN MODE)").bindparams(
            boolean=boolean
        )
    return false()


def _contains_word(dialect: str, word: str) -> ColumnElement[bool] | TextClause:
    """The content holds `word`. A word with letters of two cases (from a mixed word such as
    readme整理) ignores case; one without (周末, ラーメン) is compared byte for byte, which is
    what SQLite's and PostgreSQL's LIKE do with such text, and which spares MariaDB its
    collation (0.6x the time) and PostgreSQL ILIKE's folding of every row (0.3x)."""
    pattern = bindparam("word", _contains(word), String(), unique=True)
    if word == word.upper():
        if dialect in ("mysql", "mariadb"):
            return text("chat_message.content LIKE BINARY :word ESCAPE '/'").bindparams(pattern)
        match = ChatMessage.content.like(pattern, escape="/")
    else:
        match = ChatMessage.content.ilike(pattern, escape="/")
    if dialect == "sqlite":  # a text that holds such a word is stored as it is (chat.tables)
        return and_(func.typeof(ChatMessage.content) == "text", match)
    return match


def _contains(q: str) -> str:
    escaped = q.lower().replace("/", "//").replace("%", "/%").replace("_", "/_")
    return f"%{escaped}%"
