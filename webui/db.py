"""The SQLite event store: tables, players, games (GameLogs), their moves and redo stacks.

This module owns the database. Every accepted move is one committed row before anybody is
told about it; a state is never stored, only the log that replays to it. WAL mode and
``synchronous=FULL`` make each commit durable, so ``kill -9`` loses no accepted move.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask

log = logging.getLogger("kortbord.web.db")

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    game TEXT NOT NULL,
    config TEXT NOT NULL,
    options TEXT NOT NULL,
    join_code TEXT NOT NULL,
    owner_token TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'none',
    match_target INTEGER,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    colour TEXT NOT NULL,
    token TEXT NOT NULL UNIQUE,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id TEXT NOT NULL REFERENCES tables(id),
    number INTEGER NOT NULL,
    game TEXT NOT NULL,
    config TEXT NOT NULL,
    initial TEXT NOT NULL,
    seed INTEGER NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    result TEXT,
    UNIQUE (table_id, number)
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    idx INTEGER NOT NULL,
    move TEXT NOT NULL,
    source TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (game_id, idx)
);
CREATE TABLE IF NOT EXISTS redo (
    game_id INTEGER NOT NULL REFERENCES games(id),
    idx INTEGER NOT NULL,
    move TEXT NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
);
-- What a game's pages say until its next change, kept over a restart: the cards to put back
-- after an undo, what a photo's reader inferred, a phone's dealt card another player got
CREATE TABLE IF NOT EXISTS notices (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    notice TEXT NOT NULL
);
-- A table the family took off the lists (home, matches): nothing of it is deleted, its page
-- still opens by its link (phones at it play on), and it may be put back
CREATE TABLE IF NOT EXISTS removed (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    at REAL NOT NULL
);
-- A Stigespill deal with real cards: the cards a player's phone noted, not yet entered
CREATE TABLE IF NOT EXISTS noted (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    cards TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
"""


def connect(path: str | Path) -> sqlite3.Connection:
    """Open the database at ``path`` (in WAL mode since :func:`init_db`) with durable commits."""
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


class StoreError(Exception):
    """The database cannot be opened, or is not Kortbord's; the message names the file."""


def init_db(path: str | Path) -> sqlite3.Connection:
    """Create the schema if missing and check the file; return the connection, open. Raise
    :class:`StoreError` if the file cannot hold the schema, is damaged (cut short: pages the
    WAL holds can make it look whole), or was emptied (SQLite would take a file of 0 bytes
    for a new database, and the home page would show a family's games gone without a word)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    # (A WAL beside it does not help: SQLite reads it as the log of an empty database.)
    if Path(path).is_file() and Path(path).stat().st_size == 0:
        raise StoreError(
            f"{path} is empty (0 bytes): the tables it held are gone; put back a copy of it,"
            " or delete it to start with no tables"
        )
    try:
        conn = connect(path)
        try:
            # Kept in the file: later connections need not set it (which needs write access,
            # and would make every read fail where the folder turned read-only).
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(SCHEMA)
            problems = [row[0] for row in conn.execute("PRAGMA quick_check(1)")]
        except BaseException:
            conn.close()
            raise
    except sqlite3.OperationalError as e:  # permissions, a folder in its place, locked
        folder = Path(path).parent
        if not os.access(folder, os.W_OK):  # SQLite says only "unable to open database file"
            raise StoreError(
                f"cannot open the database {path}: its folder {folder} is read-only (the "
                "database needs to write beside it; --data picks another)"
            ) from None
        raise StoreError(f"cannot open the database {path}: {e}") from None
    except sqlite3.DatabaseError as e:  # it opens, but holds something else
        if "malformed" in str(e):
            raise StoreError(f"{path} is damaged ({e}); put back a copy of it") from None
        raise StoreError(f"{path} is not a Kortbord database ({e})") from None
    if problems != ["ok"]:
        conn.close()
        found = " ".join(problems[0].replace("*** in database main ***", "").split())
        raise StoreError(f"{path} is damaged ({found}); put back a copy of it")
    return conn


def init_app(app: Flask) -> None:
    """Create the schema; hold one connection open for the app's life."""
    # The WAL's files (-wal, -shm) go with the last connection, and every short connection
    # after it makes them anew: on a full disk that fails, and the phones' pages could not
    # even be read. Held open, they stay, and a full disk refuses only changes.
    app.extensions["kortbord.db_keeper"] = init_db(app.config["DATABASE"])


def _checkpoint(conn: sqlite3.Connection) -> None:
    """Copy what was committed from the WAL into the database file, so the file alone holds
    every game (a copy of it is a backup), though the WAL is held open (:func:`init_app`).
    The change is committed already: a checkpoint that fails (a full disk) is only logged."""
    try:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    except sqlite3.Error as e:
        log.warning("cannot copy the WAL into the database file: %s", e)


class EventStore:
    """Writes and reads the event log. Each method opens its own short connection, so
    request threads and background producers can share one store safely."""

    def __init__(self, path: str | Path):
        self.path = str(path)

    def _conn(self) -> sqlite3.Connection:
        return connect(self.path)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """Yield a connection inside BEGIN IMMEDIATE … COMMIT; roll back on any error."""
        conn = self._conn()
        try:
            try:
                conn.execute("BEGIN IMMEDIATE")
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                # Not when BEGIN itself failed (a read-only file), or SQLite already rolled
                # back (a full disk): a ROLLBACK then would hide the error that says why.
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            _checkpoint(conn)
        finally:
            conn.close()

    # ---- tables and players ----------------------------------------------------
    def create_table(
        self,
        table: dict[str, Any],
        players: list[dict[str, Any]],
        first_game: dict[str, Any],
    ) -> int:
        """Insert a table, its players and its first game in one transaction; return game id."""
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO tables (id, name, game, config, options, join_code, owner_token,"
                " source, match_target, created) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    table["id"],
                    table["name"],
                    table["game"],
                    json.dumps(table["config"]),
                    json.dumps(table["options"]),
                    table["join_code"],
                    table["owner_token"],
                    table.get("source", "none"),
                    table.get("match_target"),
                    time.time(),
                ),
            )
            for p in players:
                conn.execute(
                    "INSERT INTO players (table_id, seat, name, colour, token) VALUES (?,?,?,?,?)",
                    (table["id"], p["seat"], p["name"], p["colour"], p["token"]),
                )
            game_id = self._insert_game(conn, table["id"], 1, first_game)
            return game_id

    def _insert_game(
        self, conn: sqlite3.Connection, table_id: str, number: int, game: dict[str, Any]
    ) -> int:
        cur = conn.execute(
            "INSERT INTO games (table_id, number, game, config, initial, seed, created)"
            " VALUES (?,?,?,?,?,?,?)",
            (
                table_id,
                number,
                game["game"],
                json.dumps(game["config"]),
                json.dumps(game["initial"]),
                game["seed"],
                time.time(),
            ),
        )
        game_id = cur.lastrowid
        assert game_id is not None  # every INSERT sets it
        return game_id

    def new_game(self, table_id: str, game: dict[str, Any]) -> int:
        """Start the table's next game; return its id."""
        with self._transaction() as conn:
            n = conn.execute(
                "SELECT COALESCE(MAX(number), 0) FROM games WHERE table_id=?", (table_id,)
            ).fetchone()[0]
            game_id = self._insert_game(conn, table_id, n + 1, game)
            return game_id

    def replace_setup(
        self,
        table_id: str,
        game_id: int,
        config: dict[str, Any],
        initial: dict[str, Any],
        options: dict[str, Any],
    ) -> None:
        """Give a game that has no move yet another set-up (a road the camera read), and the
        table the same config and ``options``, in one transaction."""
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM moves WHERE game_id=?", (game_id,)).fetchone():
                raise ValueError("the game has begun: its set-up stays")
            conn.execute(
                "UPDATE games SET config=?, initial=? WHERE id=?",
                (json.dumps(config), json.dumps(initial), game_id),
            )
            conn.execute(
                "UPDATE tables SET config=?, options=? WHERE id=?",
                (json.dumps(config), json.dumps(options), table_id),
            )

    def set_options(self, table_id: str, options: dict[str, Any]) -> None:
        """Replace the table's options (deal mode, confirmed camera zones…)."""
        conn = self._conn()
        try:
            conn.execute("UPDATE tables SET options=? WHERE id=?", (json.dumps(options), table_id))
            _checkpoint(conn)
        finally:
            conn.close()

    def set_source(self, table_id: str, source: str) -> None:
        """Change the table's camera source."""
        conn = self._conn()
        try:
            conn.execute("UPDATE tables SET source=? WHERE id=?", (source, table_id))
            _checkpoint(conn)
        finally:
            conn.close()

    def table(self, table_id: str) -> dict[str, Any] | None:
        """Return a table with its options and players, or ``None``."""
        conn = self._conn()
        try:
            row = conn.execute("SELECT * FROM tables WHERE id=?", (table_id,)).fetchone()
            if row is None:
                return None
            out = dict(row)
            out["config"] = json.loads(out["config"])
            out["options"] = json.loads(out["options"])
            out["players"] = [
                dict(r)
                for r in conn.execute(
                    "SELECT seat, name, colour, token FROM players WHERE table_id=? ORDER BY seat",
                    (table_id,),
                )
            ]
            return out
        finally:
            conn.close()

    def player_by_token(self, token: str) -> dict[str, Any] | None:
        """Return the player whose secret token this is, or ``None``."""
        conn = self._conn()
        try:
            row = conn.execute(
                "SELECT table_id, seat, name, colour, token FROM players WHERE token=?", (token,)
            ).fetchone()
            return dict(row) if row else None
        finally:
            conn.close()

    def set_removed(self, table_id: str, removed: bool) -> None:
        """Take a table off the lists (``removed``), or put it back; its games stay."""
        with self._transaction() as conn:
            if removed:
                conn.execute(
                    "INSERT OR IGNORE INTO removed (table_id, at) VALUES (?,?)",
                    (table_id, time.time()),
                )
            else:
                conn.execute("DELETE FROM removed WHERE table_id=?", (table_id,))

    def is_removed(self, table_id: str) -> bool:
        """Return whether the table was taken off the lists."""
        conn = self._conn()
        try:
            row = conn.execute("SELECT 1 FROM removed WHERE table_id=?", (table_id,)).fetchone()
            return row is not None
        finally:
            conn.close()

    def list_tables(self, removed: bool = False) -> list[dict[str, Any]]:
        """Return every table on the lists (``removed``: every one taken off them instead)
        with its config, its current game's number, whether it is finished, and its players'
        names in seat order (``player_names``)."""
        conn = self._conn()
        try:
            rows = conn.execute(
                "SELECT t.id, t.name, t.game, t.config, t.match_target, t.created, t.source,"
                " t.owner_token, t.join_code,"
                " g.number, g.finished, g.result,"
                " (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id) AS moves,"
                " (SELECT json_group_array(name) FROM (SELECT name FROM players p"
                "  WHERE p.table_id = t.id ORDER BY seat)) AS player_names"
                " FROM tables t JOIN games g ON g.table_id = t.id"
                " AND g.number = (SELECT MAX(number) FROM games WHERE table_id = t.id)"
                f" WHERE t.id {'IN' if removed else 'NOT IN'} (SELECT table_id FROM removed)"
                " ORDER BY t.created DESC"
            ).fetchall()
            return [
                {
                    **r,
                    "config": json.loads(r["config"]),
                    "player_names": json.loads(r["player_names"]),
                }
                for r in map(dict, rows)
            ]
        finally:
            conn.close()

    # ---- games and moves ---------------------------------------------------------
    def current_game(self, table_id: str) -> dict[str, Any]:
        """Return the table's latest game with its moves and redo stack."""
        conn = self._conn()
        try:
            row = conn.execute(
                "SELECT * FROM games WHERE table_id=? ORDER BY number DESC LIMIT 1", (table_id,)
            ).fetchone()
            game = dict(row)
            game["config"] = json.loads(game["config"])
            game["initial"] = json.loads(game["initial"])
            game["result"] = json.loads(game["result"]) if game["result"] else None
            game["moves"] = [
                {"move": json.loads(r["move"]), "source": r["source"]}
                for r in conn.execute(
                    "SELECT move, source FROM moves WHERE game_id=? ORDER BY idx", (game["id"],)
                )
            ]
            game["redo"] = [
                {"move": json.loads(r["move"]), "source": r["source"]}
                for r in conn.execute(
                    "SELECT move, source FROM redo WHERE game_id=? ORDER BY idx", (game["id"],)
                )
            ]
            game["noted"] = {
                r["seat"]: json.loads(r["cards"])
                for r in conn.execute(
                    "SELECT seat, cards FROM noted WHERE game_id=?", (game["id"],)
                )
            }
            row = conn.execute(
                "SELECT notice FROM notices WHERE game_id=?", (game["id"],)
            ).fetchone()
            game["notices"] = json.loads(row["notice"]) if row else {}
            return game
        finally:
            conn.close()

    def set_notices(self, game_id: int, notices: dict[str, Any]) -> None:
        """Keep what a game's pages say until its next change (``{}``: nothing)."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM notices WHERE game_id=?", (game_id,))
            if notices:
                conn.execute(
                    "INSERT INTO notices (game_id, notice) VALUES (?,?)",
                    (game_id, json.dumps(notices)),
                )

    def games(self, table_id: str) -> list[dict[str, Any]]:
        """Return every game of a table (without moves), oldest first."""
        conn = self._conn()
        try:
            rows = conn.execute(
                "SELECT id, number, game, created, finished, result FROM games"
                " WHERE table_id=? ORDER BY number",
                (table_id,),
            ).fetchall()
            out = []
            for r in rows:
                d = dict(r)
                d["result"] = json.loads(d["result"]) if d["result"] else None
                out.append(d)
            return out
        finally:
            conn.close()

    def append_moves(
        self,
        game_id: int,
        start_idx: int,
        moves: list[tuple[dict[str, Any], str]],
        *,
        keep_redo: bool = False,
        result: dict[str, Any] | None = None,
        noted: dict[int, list[str]] | None = None,
        replacing: bool = False,
    ) -> None:
        """Commit ``moves`` (JSON, source) at ``start_idx``…; clear redo unless redoing;
        replace the noted cards (see :meth:`set_noted`) if given. ``replacing``: the moves
        from ``start_idx`` on are dropped first (the camera read them again)."""
        with self._transaction() as conn:
            if replacing:
                conn.execute("DELETE FROM moves WHERE game_id=? AND idx>=?", (game_id, start_idx))
                conn.execute("UPDATE games SET finished=NULL, result=NULL WHERE id=?", (game_id,))
            if noted is not None:
                self._write_noted(conn, game_id, noted)
            now = time.time()
            for k, (move, source) in enumerate(moves):
                conn.execute(
                    "INSERT INTO moves (game_id, idx, move, source, created) VALUES (?,?,?,?,?)",
                    (game_id, start_idx + k, json.dumps(move), source, now),
                )
            if keep_redo:
                # A redo consumes the top of the stack: as many entries as were re-applied.
                top = conn.execute(
                    "SELECT idx FROM redo WHERE game_id=? ORDER BY idx DESC LIMIT ?",
                    (game_id, len(moves)),
                ).fetchall()
                for r in top:
                    conn.execute("DELETE FROM redo WHERE game_id=? AND idx=?", (game_id, r[0]))
            else:
                conn.execute("DELETE FROM redo WHERE game_id=?", (game_id,))
            if result is not None:
                conn.execute(
                    "UPDATE games SET finished=?, result=? WHERE id=?",
                    (now, json.dumps(result), game_id),
                )

    def set_noted(self, game_id: int, noted: dict[int, list[str]]) -> None:
        """Replace the cards each seat's phone noted of a deal, not yet entered."""
        with self._transaction() as conn:
            self._write_noted(conn, game_id, noted)

    @staticmethod
    def _write_noted(conn: sqlite3.Connection, game_id: int, noted: dict[int, list[str]]) -> None:
        conn.execute("DELETE FROM noted WHERE game_id=?", (game_id,))
        conn.executemany(
            "INSERT INTO noted (game_id, seat, cards) VALUES (?,?,?)",
            [(game_id, seat, json.dumps(cards)) for seat, cards in noted.items() if cards],
        )

    def undo(self, game_id: int, from_idx: int) -> None:
        """Move the moves at ``from_idx``… onto the redo stack (last move on top)."""
        with self._transaction() as conn:
            rows = conn.execute(
                "SELECT idx, move, source FROM moves WHERE game_id=? AND idx>=? ORDER BY idx DESC",
                (game_id, from_idx),
            ).fetchall()
            base = conn.execute(
                "SELECT COALESCE(MAX(idx), -1) FROM redo WHERE game_id=?", (game_id,)
            ).fetchone()[0]
            # The redo stack's top (highest idx) is the next move to re-apply, so the
            # earliest undone move goes on top.
            for k, r in enumerate(rows):
                conn.execute(
                    "INSERT INTO redo (game_id, idx, move, source) VALUES (?,?,?,?)",
                    (game_id, base + 1 + k, r["move"], r["source"]),
                )
            conn.execute("DELETE FROM moves WHERE game_id=? AND idx>=?", (game_id, from_idx))
            conn.execute("UPDATE games SET finished=NULL, result=NULL WHERE id=?", (game_id,))
