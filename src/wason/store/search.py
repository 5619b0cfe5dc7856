"""Search across transcripts, in the database: SQLite's FTS5 or PostgreSQL's full-text search, never a scan in
Python.

What is searched: each turn's reply, feedback and move (what the player wrote, was told, and did: the action's
values, so a solver's or a person's move is found as a model's reply is; the action's ``type`` tag is left out)
and each model call's reply and messages. Words are matched whole and without regard to case (SQLite's
``unicode61`` tokenizer, PostgreSQL's ``simple`` configuration: no stemming, no stop words, the same on both);
every word given must occur in one turn or one call. :func:`snippet` cuts the piece of a found text around its
first word, for the search page.

The user's text is never query syntax: it is cut into words, each quoted for FTS5 (a ``"`` doubled) or handed to
``plainto_tsquery``, so ``NEAR(``, ``"``, ``*`` or ``AND`` are searched as words, never parsed.

The index objects are created by the store's migrations from :func:`create_statements` (0006: version 1, replies
and feedback; 0008: version 2, :data:`INDEX_VERSION`, with the moves); the queries below use the same expressions,
so PostgreSQL's planner uses its GIN indexes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

MAX_QUERY_CHARS = 200
"""The longest search text accepted (a request's ``q``)."""
MAX_TERMS = 12
"""The most words a search text may hold."""

TURNS_FTS = "search_turns"
CALLS_FTS = "search_calls"
SEARCH_TABLES = (TURNS_FTS, CALLS_FTS)
"""SQLite's FTS5 tables (each with shadow tables named after it, ``search_turns_data``...)."""
PG_INDEXES = ("ix_turns_search", "ix_model_calls_search")

INDEX_VERSION = 2
"""What the index holds: 1, a turn's reply and feedback (migration 0006); 2, also its move (migration 0008)."""


def _action_text(row: str) -> str:
    # the move's values (strings and numbers, at any depth), not its JSON text nor its "type" tag
    values = (
        f"(SELECT group_concat(value, ' ') FROM json_tree({row}.action) "
        "WHERE type IN ('text', 'integer', 'real') AND NOT (key = 'type' AND path = '$'))"
    )
    return f"coalesce(CASE WHEN json_valid({row}.action) THEN {values} END, '')"


def _turn_body(row: str, version: int = INDEX_VERSION) -> str:
    body = f"coalesce({row}.reply, '') || ' ' || coalesce({row}.feedback, '')"
    return body if version < 2 else f"{body} || ' ' || {_action_text(row)}"


def _call_body(row: str) -> str:
    # a message's content, not its JSON text (its escapes, \n, would join the words around them)
    contents = (
        f"(SELECT group_concat(json_extract(value, '$.content'), ' ') FROM json_each({row}.messages) "
        "WHERE type = 'object')"
    )
    return (
        f"coalesce({row}.response, '') || ' ' || "
        f"coalesce(CASE WHEN json_valid({row}.messages) THEN {contents} END, '')"
    )


PG_TURN_TEXT = "to_tsvector('simple'::regconfig, coalesce(reply, '') || ' ' || coalesce(feedback, ''))"
PG_ACTION_DOC = (
    "jsonb_to_tsvector('simple'::regconfig, (action::jsonb - 'type'), '[\"string\", \"numeric\"]')"
)
PG_TURN_DOC = f"({PG_TURN_TEXT} || {PG_ACTION_DOC})"


def _pg_turn_doc(version: int) -> str:
    return PG_TURN_DOC if version >= 2 else PG_TURN_TEXT


PG_CALL_DOC = (
    "(to_tsvector('simple'::regconfig, coalesce(response, '')) || to_tsvector('simple'::regconfig, messages))"
)


def is_search_object(name: str) -> bool:
    """Whether a table or index of the database is the search's (not described by the store's tables)."""
    return name in PG_INDEXES or any(name == t or name.startswith(f"{t}_") for t in SEARCH_TABLES)


def fts5_available(connection: Connection) -> bool:
    """Whether this SQLite has FTS5 (Python's own builds do)."""
    try:
        connection.exec_driver_sql("CREATE VIRTUAL TABLE temp.wason_fts5_probe USING fts5(x)")
        connection.exec_driver_sql("DROP TABLE temp.wason_fts5_probe")
    except sa.exc.OperationalError:
        return False
    return True


def _fts_statements(table: str, source: str, body: Callable[[str], str], columns: str) -> list[str]:
    return [
        f"CREATE VIRTUAL TABLE {table} USING fts5(body, content='', tokenize='unicode61 remove_diacritics 2')",
        f"INSERT INTO {table}(rowid, body) SELECT id, {body(source)} FROM {source}",
        f"CREATE TRIGGER {table}_insert AFTER INSERT ON {source} BEGIN "
        f"INSERT INTO {table}(rowid, body) VALUES (new.id, {body('new')}); END",
        f"CREATE TRIGGER {table}_delete AFTER DELETE ON {source} BEGIN "
        f"INSERT INTO {table}({table}, rowid, body) VALUES ('delete', old.id, {body('old')}); END",
        f"CREATE TRIGGER {table}_update AFTER UPDATE OF {columns} ON {source} BEGIN "
        f"INSERT INTO {table}({table}, rowid, body) VALUES ('delete', old.id, {body('old')}); "
        f"INSERT INTO {table}(rowid, body) VALUES (new.id, {body('new')}); END",
    ]


def create_statements(
    connection: Connection, version: int = INDEX_VERSION, *, only_turns: bool = False
) -> list[str]:
    """The DDL that builds the search's index (of ``version``: :data:`INDEX_VERSION`) on this database, and
    indexes the rows already stored; with ``only_turns``, the turns' index alone (what version 2 changed)."""
    dialect = connection.dialect.name
    if dialect == "postgresql":
        out = [f"CREATE INDEX {PG_INDEXES[0]} ON turns USING gin ({_pg_turn_doc(version)})"]
        return (
            out
            if only_turns
            else [*out, f"CREATE INDEX {PG_INDEXES[1]} ON model_calls USING gin ({PG_CALL_DOC})"]
        )
    if dialect != "sqlite" or not fts5_available(connection):
        return []
    turn_columns = "reply, feedback" if version < 2 else "reply, feedback, action"
    out = _fts_statements(TURNS_FTS, "turns", lambda row: _turn_body(row, version), turn_columns)
    if not only_turns:
        out += _fts_statements(CALLS_FTS, "model_calls", _call_body, "response, messages")
    return out


def drop_statements(connection: Connection, *, only_turns: bool = False) -> list[str]:
    """The DDL that drops the search's index (with ``only_turns``, the turns' index alone)."""
    if connection.dialect.name == "postgresql":
        names = PG_INDEXES[:1] if only_turns else PG_INDEXES
        return [f"DROP INDEX IF EXISTS {name}" for name in names]
    out = []
    for table in SEARCH_TABLES[:1] if only_turns else SEARCH_TABLES:
        out += [f"DROP TRIGGER IF EXISTS {table}_{what}" for what in ("insert", "delete", "update")]
        out.append(f"DROP TABLE IF EXISTS {table}")
    return out


# -- the user's text --------------------------------------------------------------------------------------------
_WORD = re.compile(r"\S+")


def check_query(text: str) -> str:
    """The search text, stripped; raises ``ValueError`` (one line, for the user) when it cannot be searched."""
    text = text.strip()
    if not text:
        raise ValueError("give a word to search for")
    if len(text) > MAX_QUERY_CHARS:
        raise ValueError(f"at most {MAX_QUERY_CHARS} characters (got {len(text)})")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise ValueError("a control character cannot be searched for")
    if len(_WORD.findall(text)) > MAX_TERMS:
        raise ValueError(f"at most {MAX_TERMS} words")
    return text


def fts5_query(text: str) -> str:
    """The words of ``text`` as an FTS5 query of quoted strings (each must occur): never FTS5 syntax."""
    return " ".join('"' + word.replace('"', '""') + '"' for word in _WORD.findall(text))


def _like(word: str) -> str:
    return "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


# -- queries ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Hit:
    """An episode whose transcript holds the words: the first turn where they occur (None: a call outside any
    turn), whether they were found in a model call rather than a turn, and then the first such call's id."""

    episode_id: int
    turn: int | None
    in_call: bool
    call_id: int | None = None


def _fts_ready(connection: Connection) -> bool:
    found = connection.exec_driver_sql(
        "SELECT count(*) FROM sqlite_master WHERE name IN (?, ?)", (TURNS_FTS, CALLS_FTS)
    ).scalar_one()
    return int(found) == 2


def find(
    connection: Connection,
    text: str,
    *,
    run_ids: Sequence[int] | None,
    reveal: Collection[str],
    limit: int | None = None,
) -> list[Hit]:
    """The episodes (of ``run_ids``, else all) whose turns hold every word of ``text`` - or whose model calls do,
    for episodes with a status in ``reveal`` (a call's messages may hold what a game not over keeps hidden).

    Episodes by id, newest last; at most ``limit``.

    Raises:
        ValueError: ``text`` cannot be searched (:func:`check_query`).
    """
    text = check_query(text)
    dialect = connection.dialect.name
    params: dict[str, Any] = {}
    scope = ""
    if run_ids is not None:
        if not run_ids:
            return []
        names = [f"r{i}" for i in range(len(run_ids))]
        params.update(zip(names, run_ids, strict=True))
        scope = f" AND e.run_id IN ({', '.join(':' + n for n in names)})"
    statuses = sorted(reveal)
    names = [f"s{i}" for i in range(len(statuses))]
    params.update(zip(names, statuses, strict=True))
    revealed = f" AND e.status IN ({', '.join(':' + n for n in names)})" if names else " AND 1 = 0"
    if dialect == "postgresql":
        params["q"] = text
        turn_doc = PG_TURN_DOC.replace("reply", "t.reply").replace("feedback", "t.feedback")
        turn_match = (
            f"{turn_doc.replace('(action::', '(t.action::')} @@ plainto_tsquery('simple'::regconfig, :q)"
        )
        call_doc = PG_CALL_DOC.replace("response", "m.response").replace("messages", "m.messages")
        call_match = f"{call_doc} @@ plainto_tsquery('simple'::regconfig, :q)"
        turn_from, call_from = "turns t", "model_calls m"
    elif dialect == "sqlite" and _fts_ready(connection):
        params["q"] = fts5_query(text)
        turn_from = f"{TURNS_FTS} f JOIN turns t ON t.id = f.rowid"
        call_from = f"{CALLS_FTS} g JOIN model_calls m ON m.id = g.rowid"
        turn_match = f"{TURNS_FTS} MATCH :q"
        call_match = f"{CALLS_FTS} MATCH :q"
    else:  # no full-text index (a SQLite without FTS5): LIKE, still in the database
        words = _WORD.findall(text)
        params.update({f"w{i}": _like(w) for i, w in enumerate(words)})
        # SQLite: the move's values, as the index has them; elsewhere its JSON text
        action = f"({_action_text('t')})" if dialect == "sqlite" else "CAST(t.action AS TEXT)"
        turn_match = " AND ".join(
            f"(t.reply LIKE :w{i} ESCAPE '\\' OR t.feedback LIKE :w{i} ESCAPE '\\' "
            f"OR {action} LIKE :w{i} ESCAPE '\\')"
            for i in range(len(words))
        )
        # SQLite: the messages' content, as the index has it; elsewhere their JSON text
        body = (
            f"({_call_body('m')})"
            if dialect == "sqlite"
            else "(coalesce(m.response, '') || ' ' || CAST(m.messages AS TEXT))"
        )
        call_match = " AND ".join(f"{body} LIKE :w{i} ESCAPE '\\'" for i in range(len(words)))
        turn_from, call_from = "turns t", "model_calls m"
    query = (
        f"SELECT t.episode_id AS episode_id, min(t.{_q('index')}) AS turn, 0 AS in_call, NULL AS call_id "
        f"FROM {turn_from} JOIN episodes e ON e.id = t.episode_id WHERE {turn_match}{scope} "
        "GROUP BY t.episode_id "
        "UNION ALL "
        "SELECT m.episode_id AS episode_id, min(m.turn) AS turn, 1 AS in_call, min(m.id) AS call_id "
        f"FROM {call_from} JOIN episodes e ON e.id = m.episode_id WHERE {call_match}{scope}{revealed} "
        "GROUP BY m.episode_id"
    )
    found: dict[int, Hit] = {}
    for episode_id, turn, in_call, call_id in connection.execute(sa.text(query), params):
        hit = Hit(
            int(episode_id),
            None if turn is None else int(turn),
            bool(in_call),
            None if call_id is None else int(call_id),
        )
        if int(episode_id) not in found or not hit.in_call:  # a turn is the better place to point at
            found[int(episode_id)] = hit
    hits = [found[k] for k in sorted(found)]
    return hits[:limit] if limit is not None else hits


def _q(name: str) -> str:
    return f'"{name}"'


# -- what a hit shows ---------------------------------------------------------------------------------------------
SNIPPET_CHARS = 160
"""About how many characters of a found text a snippet shows."""

_TOKEN = re.compile(r"\w+")


def action_values(action: Any) -> list[str]:
    """A stored move's values as the index reads them: its strings and numbers at any depth, the ``type`` tag
    left out (booleans and nulls are no words)."""
    out: list[str] = []

    def walk(value: Any, top: bool) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                if not (top and key == "type"):
                    walk(inner, False)
        elif isinstance(value, list | tuple):
            for inner in value:
                walk(inner, False)
        elif isinstance(value, str):
            out.append(value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out.append(str(value))

    walk(action, True)
    return out


def snippet(texts: Sequence[str], query: str, *, width: int = SNIPPET_CHARS) -> list[tuple[str, bool]]:
    """The piece of ``texts`` (a hit's reply, feedback, move...) around the first word of ``query`` found, as
    ``(text, is_a_word_of_the_query)`` parts for a page to mark: the text holding most of the query's words
    (the first such), cut to about ``width`` characters around its first match, ``...`` where it was cut.
    Matched as the index does: whole words, in any case. Empty when no text holds a word of the query."""
    words = {w.lower() for w in _TOKEN.findall(query)}
    if not words:
        return []
    pattern = re.compile(
        r"(?<!\w)(" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")(?!\w)", re.I
    )
    best: tuple[int, str] | None = None
    for text in texts:
        flat = " ".join(str(text).split())
        held = len({m.group(0).lower() for m in pattern.finditer(flat)})
        if held and (best is None or held > best[0]):
            best = (held, flat)
    if best is None:
        return []
    flat = best[1]
    first = pattern.search(flat)
    if first is None:  # never: the text was chosen for holding a word
        return []
    start = max(0, first.start() - width // 3)
    end = min(len(flat), start + width)
    start = max(0, min(start, end - width))
    piece = flat[start:end]
    parts: list[tuple[str, bool]] = [("...", False)] if start > 0 else []
    at = 0
    for m in pattern.finditer(piece):
        if m.start() > at:
            parts.append((piece[at : m.start()], False))
        parts.append((m.group(0), True))
        at = m.end()
    if at < len(piece):
        parts.append((piece[at:], False))
    if end < len(flat):
        parts.append(("...", False))
    return parts


__all__ = [
    "INDEX_VERSION",
    "MAX_QUERY_CHARS",
    "MAX_TERMS",
    "SEARCH_TABLES",
    "SNIPPET_CHARS",
    "Hit",
    "action_values",
    "check_query",
    "create_statements",
    "drop_statements",
    "find",
    "fts5_query",
    "is_search_object",
    "snippet",
]
