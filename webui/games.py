"""What the web layer knows about each game: set-up forms, who may see a move, move words.

The referee's views carry the game; this module only decides which legal moves a page may
offer (a move naming a hand card belongs on that player's private page, never the table's),
and puts moves into words a player reads, in the page's language.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from referee import CHANCE, Move, Rules, RulesError, make_rules, skipbo, sten, stigespill
from referee.cards import CardError, parse_card, split_codes
from referee.skipbo import SkipBo
from referee.sten import Sten
from referee.stigespill import (
    DIE_CARDS,
    DIE_RANKS,
    ROAD_LENGTH,
    Reveal,
    Stigespill,
    check_road,
)
from webui import i18n
from webui.i18n import Translator
from webui.speech import name_seats, pretty, say_named

GAME_TITLES = {"stigespill": "Stigespill", "sten": "Sten", "skipbo": "Skip-Bo"}
# The cards a Skip-Bo stock is dealt when the form leaves it to the rules, by the number of
# players (eight play only as teams), for the form's own hint
SKIPBO_STOCKS = {
    n: SkipBo(players=n, teams=n > skipbo.MAX_PLAYERS).stock
    for n in sorted({*range(skipbo.MIN_PLAYERS, skipbo.MAX_PLAYERS + 1), *skipbo.TEAM_PLAYERS})
}
# A token's colours by their English names, each colour's value written once; the form's
# error lists these names, the page's language saying them
_COLOUR_VALUES = {
    "red": "#d62828",
    "blue": "#1d4ed8",
    "green": "#15803d",
    "yellow": "#a16207",
    "purple": "#7c3aed",
    "pink": "#db2777",
    "teal": "#0891b2",
    "orange": "#ea580c",
    "grey": "#4b5563",
    "black": "#111827",
    "white": "#e5e7eb",
}
COLOURS_SAID = tuple(_COLOUR_VALUES)
# the same colours' other names: American English, Norwegian, Danish and Swedish
_COLOUR_WORDS = {
    "gray": "grey",
    "rød": "red",
    "röd": "red",
    "blå": "blue",
    "grønn": "green",
    "grøn": "green",
    "grön": "green",
    "gul": "yellow",
    "lilla": "purple",
    "rosa": "pink",
    "oransje": "orange",
    "grå": "grey",
    "svart": "black",
    "sort": "black",
    "hvit": "white",
    "hvid": "white",
    "vit": "white",
    "lila": "purple",
    "lyserød": "pink",
    "turkis": "teal",
    "turkos": "teal",
}
COLOUR_NAMES = {**_COLOUR_VALUES, **{w: _COLOUR_VALUES[c] for w, c in _COLOUR_WORDS.items()}}
# the tokens' colours where none is asked for: the named ones but black and white, then a
# dark teal
COLOURS = (*(v for c, v in _COLOUR_VALUES.items() if c not in ("black", "white")), "#0f766e")
MAX_NAME = 24
# How many each game seats, least and most, as its rules say (their limits, said once there):
# the new-game form's players field (the rules still judge each number between: Skip-Bo
# refuses 7)
PLAYERS = {
    "stigespill": (stigespill.MIN_PLAYERS, stigespill.MAX_SEATS),
    "sten": (sten.MIN_PLAYERS, sten.MAX_PLAYERS),
    "skipbo": (skipbo.MIN_PLAYERS, max(skipbo.TEAM_PLAYERS)),
}
MOST_PLAYERS = max(most for _, most in PLAYERS.values())  # the most any game seats
# What stands between two names typed: a comma or a line. A regular expression that Python's
# re and the page's script (forms.js, the new-game form's players raised as names are typed)
# read alike, so the page counts the names as parse_setup does.
NAME_SEPARATORS = "[,\n]"
UNNAMED = ("Player {n}", "Token {n}")  # a seat left unnamed, a solo player's token
# a table the command line made for a camera ("Camera 0", "Camera game.mp4"): in English, as
# no page made it; a page says it in its own words
CAMERA_TABLE = "Camera {source}"
_CAMERA_TABLE_START = CAMERA_TABLE.removesuffix("{source}")
ROAD_CARD_IS = "a road card is 7–K of a suit, e.g. 7S, 10H, QD, KC"
ROAD_SHAPES = ("auto", "rows")  # a snake (or U-turn, spiral, curve); rows run like text


class SetupError(ValueError):
    """A new-game form that cannot start a game; the message names the bad field."""


@dataclass
class Setup:
    """A validated new game: the rules' config, the players, and the table's options."""

    game: str
    config: dict[str, Any]
    names: list[str]
    options: dict[str, Any]
    match_target: int | None
    colours: list[str] | None = None


_PLAIN_INT = re.compile(r"-?[0-9]+")


def plain_int(text: str) -> int:
    """Return the whole number ``text`` writes in ASCII digits, a minus before them at most
    (no spaces); raise ``ValueError`` for any other text. Python's ``int`` reads "1_0" as 10
    and " 3 ", "+3" and "٣" as 3, none of which a number field of a page sends."""
    if not _PLAIN_INT.fullmatch(text):
        raise ValueError(f"not a plain whole number: {text[:20]!r}")
    return int(text)  # a ValueError still past 4300 digits


def said_back(value: Any, most: int = 20) -> str:
    """Return what a request gave as an error names it: a text in Python's quotes (a page
    says it in its own: webui.speech), cut to ``most`` characters and "…" before it is
    quoted, so that its closing quote and escapes stay whole; anything else as Python writes
    it, cut."""
    if isinstance(value, str):
        return repr(value if len(value) <= most else value[:most] + "…")
    return repr(value)[:most]


def _int(form: dict[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    raw = form.get(key, default)
    if raw in (None, ""):
        return default
    if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
        shown = json.dumps(raw)  # the request's JSON: true, not Python's True
        raise SetupError(f"{key} must be a whole number, not {shown}")
    try:
        value = plain_int(raw) if isinstance(raw, str) else int(raw)
    except (TypeError, ValueError, OverflowError):
        raise SetupError(f"{key} must be a whole number, not {str(raw)[:20]!r}") from None
    if not lo <= value <= hi:
        raise SetupError(f"{key} must be between {lo} and {hi}, not {value}")
    return value


def _flag(form: dict[str, Any], key: str) -> bool:
    """Return a yes/no option: a JSON boolean, or an HTML checkbox (its value when ticked,
    absent when not); anything else, "false" included, is a :class:`SetupError`."""
    raw = form.get(key)
    if raw is None or raw is False or raw == "":
        return False
    if raw is True or (isinstance(raw, str) and raw.lower() in ("on", "1", "true")):
        return True
    raise SetupError(f"{key} must be true or false, not {str(raw)[:20]!r}")


def road_codes(raw: Any) -> list[str]:
    """Return a Stigespill road's card codes from text ("7S 8S …") or a list of codes; a
    road with an unknown code is refused with every problem it has, the others too."""
    if not isinstance(raw, str | list) or not all(isinstance(c, str) for c in raw):
        raise SetupError("road must be card codes: text like '7S 8S 9S' or a list of codes")
    codes = split_codes(raw) if isinstance(raw, str) else raw
    if len(codes) > 2 * ROAD_LENGTH:  # not each of thousands of cards' problems
        raise SetupError(f"bad road: the road has {len(codes)} cards, not {ROAD_LENGTH}")
    cards, unknown = [], {}
    for i, code in enumerate(codes, start=1):
        try:
            cards.append(parse_card(code).code)
        except CardError:
            unknown[i] = repr(code[:20])
    if not unknown:
        return cards  # the referee names a road's problems, all at once
    # the referee's examples of a card code would be Skip-Bo codes among them
    if len(unknown) == 1:
        ((i, code),) = unknown.items()
        said = f"road card {i}: unknown card code {code}: {ROAD_CARD_IS}"
    else:
        at = ", ".join(map(str, unknown))
        said = f"unknown card codes {', '.join(unknown.values())} (road cards {at}): {ROAD_CARD_IS}"
    told = tuple(f"road card {i}: " for i in unknown)
    others = [p for p in check_road(codes) if not p.startswith(told)]
    raise SetupError("bad road: " + "; ".join([said, *others]))


# Control characters (a stray \x01 pasted into a name made the match chart's SVG invalid) and
# the bidirectional overrides that turn the text around a name (emoji joiners stay)
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def table_name(table: dict[str, Any], t: Translator) -> str:
    """Return a table's name as a page in ``t``'s language says it: the one the command line
    gave a camera's table ("Camera 0") in the page's words ("Kamera 0"), any other as it is."""
    name = table["name"]
    if table.get("source", "none") != "none" and name.startswith(_CAMERA_TABLE_START):
        return t(CAMERA_TABLE, source=name.removeprefix(_CAMERA_TABLE_START))
    return name


def given_name(table: dict[str, Any], t: Translator) -> str | None:
    """Return the name a family (or the command line) gave a table, said with ``t``, or
    ``None``: a table left unnamed is called by its game ("Skip-Bo"), which its game's badge
    says already."""
    return None if table["name"] == GAME_TITLES.get(table["game"]) else table_name(table, t)


def heading(table: dict[str, Any], names: list[str], t: Translator) -> str:
    """Return what heads a table beside its game's badge: the name given (said with ``t``),
    else who plays (``names``, its seats'; a solo player's once, not each token's), "" where
    nobody may be shown or a solo player left the name out."""
    if table["config"].get("players") == 1 and names:  # "Anna 1", "Anna 2"…: one player
        names = [name for name in (_solo_name(names[0]),) if name]
    return given_name(table, t) or ", ".join(names)


def who_plays(table: dict[str, Any], names: list[str], t: Translator) -> str:
    """Return who plays at a table, as its row says under the name given: its seats' names,
    a solo player's once with their tokens ("Anna · 10 tokens"), said with ``t``."""
    if table["config"].get("players") == 1 and names:
        tokens = t("{n} tokens", n=len(names))
        return " · ".join(said for said in (_solo_name(names[0]), tokens) if said)
    return ", ".join(names)


def _solo_name(first: str) -> str:
    """Return a solo player's name from their first token's ("Anna 1": "Anna"), or "" where
    they left it out (their tokens are "Token 1", "Brikke 1"…)."""
    return "" if first in _unnamed("Token {n}", 1) else first.removesuffix(" 1")


@cache
def _unnamed(key: str, n: int) -> frozenset[str]:
    """Return what seat ``n`` left unnamed is called in every language (``key``: "Player
    {n}" or "Token {n}")."""
    return frozenset(i18n.translator(lang)(key, n=n) for lang in i18n.LANGUAGES)


def shown_names(names: list[str], t: Translator) -> list[str]:
    """Return the seats' names as a page in ``t``'s language shows them: a seat left unnamed
    ("Player 2", a solo player's "Token 2": in English when the command line made the table,
    else in the language of the page that did) in the page's words; a name given, as it is."""
    shown = []
    for k, name in enumerate(names):
        key = next((key for key in UNNAMED if name in _unnamed(key, k + 1)), None)
        shown.append(name if key is None else t(key, n=k + 1))
    return shown


def printable(text: str) -> str:
    """Return ``text`` without control characters and bidirectional overrides."""
    return UNPRINTABLE.sub("", text)


def _given_names(form: dict[str, Any], count: int) -> list[str]:
    """Return the players' names the form gives (at most ``count``), printable."""
    raw = form.get("names", "")
    if isinstance(raw, str):
        given = [printable(n).strip() for n in re.split(NAME_SEPARATORS, raw)]
    elif isinstance(raw, list) and all(isinstance(n, str) for n in raw):
        given = [printable(n).strip() for n in raw]
    else:
        raise SetupError("names must be text, one name per player")
    given = [n for n in given if n]
    for n in given:
        if len(n) > MAX_NAME:
            raise SetupError(f"the name {n[:30]!r}… is longer than {MAX_NAME} characters")
    if len(given) > count:
        raise SetupError(f"{len(given)} names for {count} players")
    return given


def _said(t: Translator | None = None) -> Translator:
    """Return ``t``, or (no page: a command line, a test) English."""
    return t or i18n.english


def _names(form: dict[str, Any], count: int, t: Translator | None = None) -> list[str]:
    """Return a name per seat: the ones given, then "Player N" in ``t``'s language (kept
    with the table; each page shows a seat left unnamed in its own: :func:`shown_names`)."""
    given = _given_names(form, count)
    names = given + [_said(t)("Player {n}", n=k + 1) for k in range(len(given), count)]
    if len(set(names)) != len(names):
        raise SetupError("every player needs a different name")
    return names


def _colours(form: dict[str, Any], count: int) -> list[str]:
    """Return one token colour per seat: the ones asked for (names or #rrggbb), then defaults."""
    raw = form.get("colours") or ""
    if not isinstance(raw, str):
        raise SetupError("colours must be text: colour names separated by commas")
    chosen = []
    for word in (w.strip().lower() for w in raw.split(",") if w.strip()):
        colour = COLOUR_NAMES.get(word)
        if colour is None and re.fullmatch(r"#[0-9a-f]{6}", word):
            colour = word
        if colour is None:
            raise SetupError(
                f"unknown colour {word[:20]!r}; use #rrggbb or one of " + ", ".join(COLOURS_SAID)
            )
        chosen.append(colour)
    if len(chosen) > count:
        raise SetupError(f"{len(chosen)} colours for {count} tokens")
    if len(set(chosen)) != len(chosen):
        raise SetupError("every token needs a different colour")
    out = chosen + [c for c in COLOURS if c not in chosen]
    return (out * (count // len(out) + 1))[:count]


# What a new table may be given (the form's fields; the JSON API names an unknown one).
SETUP_FIELDS = (
    "game", "name", "players", "names", "colours", "deal", "open", "source", "stream_url",
    "webcam_index", "variant", "tokens", "road", "road_shape", "dealer", "teams", "stock",
    "deck", "empty_draw", "match_target",
)  # fmt: skip


def parse_setup(game: Any, form: dict[str, Any], t: Translator | None = None) -> Setup:
    """Validate a new-game form (strings or JSON values); raise :class:`SetupError`.
    ``t``: the page's translator, for the names of players left unnamed."""
    if not isinstance(game, str) or game not in GAME_TITLES:
        shown = said_back(game, 30)
        raise SetupError(f"unknown game {shown}; expected one of {', '.join(GAME_TITLES)}")
    # More names than players: the players are as many as the names, the API's as the page's
    # form (forms.js raises its players field as the names are typed); fewer names leave the
    # seats after them "Player N"
    players = _int(form, "players", 2, 1, MOST_PLAYERS)
    players = max(players, len(_given_names(form, MOST_PLAYERS)))
    deal = form.get("deal", "app")
    if deal not in ("app", "table"):
        raise SetupError(f"deal must be 'app' or 'table', not {said_back(deal)}")
    options: dict[str, Any] = {"deal": deal, "open": _flag(form, "open")}
    config: dict[str, Any] = {"players": players}
    match_target = None
    if game == "stigespill":
        variant = form.get("variant") or "classic"
        config["variant"] = variant
        if players == 1:
            config["tokens"] = _int(form, "tokens", 2, 2, 10)
        road = form.get("road") or ""
        if road:
            config["road"] = road_codes(road)
        shape = form.get("road_shape") or "auto"
        if shape not in ROAD_SHAPES:
            raise SetupError(f"unknown road shape {str(shape)[:20]!r}; expected auto or rows")
        options["road_shape"] = shape  # how a camera or a photo reads the laid-out road
        if players == 1:  # one name a token: "Anna 1", "Anna 2"; or, unnamed, "Token 1"
            given = _given_names(form, 1)
            names = [
                f"{given[0]} {k + 1}" if given else _said(t)("Token {n}", n=k + 1)
                for k in range(config["tokens"])
            ]
        else:
            names = _names(form, players, t)
    elif game == "sten":
        names = _names(form, players, t)
        config["known_hands"] = deal == "app"
        config["names"] = names
        if form.get("dealer") not in (None, ""):  # who deals: 1 = the first name; else the last
            config["dealer"] = _int(form, "dealer", players, 1, players) - 1
    else:
        if _flag(form, "teams"):
            config["teams"] = True
        stock = form.get("stock")
        if stock not in (None, ""):
            config["stock"] = _int(form, "stock", 30, 5, 30)
        deck = form.get("deck") or "skipbo"
        config["deck"] = deck
        empty_draw = form.get("empty_draw") or "play_on"
        config["empty_draw"] = empty_draw
        match_target = _int(form, "match_target", 500, 25, 10_000)
        config["match_target"] = match_target
        names = _names(form, players, t)
    try:
        rules = make_rules(game, **config)
    except RulesError as e:
        raise SetupError(str(e)) from None
    except TypeError as e:
        raise SetupError(f"bad set-up for {game}: {e}") from None
    if len(names) != rules.seats:
        raise SetupError(f"{len(names)} names for {rules.seats} seats")
    colours = _colours(form, rules.seats)
    return Setup(game, rules.config, names, options, match_target, colours)


def form_of(table: dict[str, Any], t: Translator) -> dict[str, Any]:
    """Return the new-game form's fields that set up a table like ``table`` (read back by
    :func:`parse_setup`), for a match again with the same players: its name, players and
    their names (said with ``t``, the seats left unnamed at the end left out), its cards and
    its game's choices; not its road, its dealer or its camera."""
    config, options = table["config"], table["options"]
    players = config["players"]
    form: dict[str, Any] = {"name": given_name(table, t) or "", "players": players}
    form |= {"deal": options.get("deal", "app"), "open": "1" if options.get("open") else ""}
    if players > 1:  # a solo player's names are their tokens'
        names = shown_names([p["name"] for p in table["players"]], t)
        while names and names[-1] == t("Player {n}", n=len(names)):
            names.pop()
        form["names"] = ", ".join(names)
    if table["game"] == "stigespill":
        form |= {"variant": config["variant"], "road_shape": options.get("road_shape", "auto")}
    elif table["game"] == "skipbo":
        form |= {k: config[k] for k in ("match_target", "deck", "empty_draw")}
        form["teams"] = "1" if config.get("teams") else ""
        if config["stock"] != SKIPBO_STOCKS.get(players):  # the usual one follows the players
            form["stock"] = config["stock"]
    return form


def next_rules(rules: Rules, state: Any = None, options: dict[str, Any] | None = None) -> Rules:
    """Return the rules of a table's next game (``state``: the last game's end, ``options``:
    the table's): in Sten the deal passes to the next seat (clockwise), which changes who
    gets the odd cards and who starts a real table; in Skip-Bo and Stigespill the next seat
    plays first. A Stigespill road laid out with real cards stays for the next game."""
    if isinstance(rules, Sten):
        return make_rules("sten", **{**rules.config, "dealer": (rules.dealer + 1) % rules.seats})
    if isinstance(rules, SkipBo):  # the next game of a match starts with the next player
        return make_rules("skipbo", **{**rules.config, "first": (rules.first + 1) % rules.seats})
    if isinstance(rules, Stigespill):
        config = {**rules.config, "first": (rules.first + 1) % rules.seats}
        if (options or {}).get("deal") == "table" and state is not None:
            config["road"] = [c.code for c in state.road]
        return make_rules("stigespill", **config)
    return rules


def start_state(rules: Rules, rng: random.Random, options: dict[str, Any]) -> Any:
    """Return a new game's first state: the app deals, or the real table does (``deal``)."""
    if options.get("deal") == "table" and hasattr(rules, "table_state"):
        return rules.table_state(rng)
    return rules.initial_state(rng)


# ---- who may see a move -------------------------------------------------------------
def chance_pending(rules: Rules, state: Any) -> bool:
    """Whether the game waits for a chance card (a card drawn, dealt or turned up) before
    anyone may move."""
    return not rules.is_over(state) and rules.to_move(state) == CHANCE


def chance_owner(rules: Rules, state: Any) -> int | None:
    """Return the seat whose page enters the pending chance card, ``None`` for the table."""
    if rules.name == "skipbo":
        # A card drawn into a hand is that player's secret; a stock turning up is public.
        return state.turn if state.owed and not state.turn_up else None
    return dealing_to(rules, state)


def chance_about(rules: Rules, state: Any) -> tuple[str, int | None]:
    """Return what the pending chance card is ("deal", "turn_up" or "draw") and the seat it
    is about: dealt to, whose Skip-Bo stock turns it up, or who draws it. That seat's phone
    asks for a public card too (the table's page does as well)."""
    if rules.name == "skipbo" and state.turn_up:
        return "turn_up", state.turn_up[0]
    seat = dealing_to(rules, state)
    if seat is not None:
        return "deal", seat
    return "draw", getattr(state, "turn", None)


def sten_laid_by(rules: Rules, states: list[Any], moves: list[dict[str, Any]]) -> dict[str, int]:
    """Return who laid each card of a Sten game (a card a wrong go-out took back included:
    a page asks whether a card is on the table too). At a real table a phone checks the
    cards its player tapped in against it."""
    out: dict[str, int] = {}
    for state, entry in zip(states, moves, strict=False):
        move = entry["move"]
        seat = move.get("seat")
        who = seat if isinstance(seat, int) and not isinstance(seat, bool) else rules.to_move(state)
        for code in [move["card"]] if move.get("kind") == "lay" else move.get("cards", []):
            out[code] = who
    return out


def reveals_seen_from(
    rules: Rules, state: Any, seat: int | None, moves: list[Move], open_table: bool = False
) -> list[Move]:
    """Return ``moves`` with the die cards a Stigespill strategy page is offered to say which
    card was dealt or drawn. The referee's reveals are the die pile's cards, so the cards
    missing from them are the ones in the players' secret hands: a page is offered every
    die card but those in the discard pile and in its own hand (a wrong one is refused).
    The table's page of an ``open_table`` (one device for everyone) knows every hand: it is
    offered the die pile's cards only."""
    if rules.name != "stigespill" or rules.config.get("variant") != "strategy":
        return moves
    if not state.pending or not any(m.kind == "reveal" for m in moves):
        return moves
    if seat is None and open_table:
        hands = [card for hand in state.hands for card in hand]
    else:
        hands = list(state.hands[seat]) if seat is not None else []
    known = set(state.discard) | set(hands)
    dealing = state.pending == "deal"
    offered = [c for c in DIE_CARDS if c not in known and not (dealing and c.is_joker)]
    return [m for m in moves if m.kind != "reveal"] + [Reveal(c) for c in offered]


# ---- a Stigespill strategy deal with real cards, noted ahead on the players' phones ------
def dealing_to(rules: Rules, state: Any) -> int | None:
    """Return the seat the next dealt card goes to while a Stigespill deal waits for its
    cards (the strategy variant), else ``None``."""
    if isinstance(rules, Stigespill) and state.pending == "deal":
        return rules.dealt_to(sum(len(h) for h in state.hands))
    return None


def hand_codes(state: Any, seat: int) -> list[str]:
    """Return the codes of a Stigespill seat's hand."""
    return [c.code for c in state.hands[seat]]


def in_die_pile(state: Any, code: str) -> bool:
    """Whether a card is still in the Stigespill die pile (dealt to nobody)."""
    return any(c.code == code for c in state.die)


def die_card_codes(texts: Any) -> list[str]:
    """Return the codes of a list of die cards (ace to 6, ``7R``, ``E♠`` and other forms
    taken); raise ``ValueError`` naming what is not one."""
    if not isinstance(texts, list) or len(texts) > 24:
        raise ValueError("cards are given as a list of at most 24 card codes")
    codes = []
    for text in texts:
        try:
            card = parse_card(text) if isinstance(text, str) else None
        except CardError as e:
            raise ValueError(str(e)) from None
        if card is None or card.is_joker or card.rank not in DIE_RANKS:
            raise ValueError(f"{text!r} is not a die card (ace to 6)")
        codes.append(card.code)
    return codes


def private_to(rules: Rules, state: Any, move: Move) -> int | None:
    """Return the seat a legal move is private to (it names a hand card), else ``None``."""
    kind = move.kind
    if kind == "reveal":
        return chance_owner(rules, state)
    seat = rules.to_move(state)
    if rules.name == "skipbo" and (kind == "discard" or getattr(move, "source", "") == "hand"):
        return seat
    if rules.name == "sten" and state.hands is not None and kind in ("lay", "go_out", "sten"):
        return seat
    if rules.name == "stigespill" and kind == "play" and rules.players > 1:
        return seat
    return None


def mover(rules: Rules, state: Any, move: Move) -> int | None:
    """Return the seat making ``move``: the one it names, else the seat on turn (for a
    chance card: the seat it is about, see :func:`chance_about`)."""
    seat = getattr(move, "seat", None)
    if isinstance(seat, int) and not isinstance(seat, bool):
        return seat
    on = rules.to_move(state)
    return chance_about(rules, state)[1] if on == CHANCE else on


def may_make(rules: Rules, state: Any, move: Move, seat: int | None, open_table: bool) -> bool:
    """Return whether a page (the table's, or ``seat``'s) may make ``move`` now."""
    owner = private_to(rules, state, move)
    if seat is None:
        return owner is None or open_table
    if owner is not None:
        return owner == seat
    return mover(rules, state, move) == seat


def entered_by(rules: Rules, state: Any, move: Move) -> int | None:
    """Return the seat whose phone made ``move`` (or entered its card), ``None`` for what only
    the table's page does (a table-talk penalty)."""
    if move.kind == "penalty":
        return None
    if rules.to_move(state) == CHANCE:
        owner = chance_owner(rules, state)
        return owner if owner is not None else chance_about(rules, state)[1]
    return mover(rules, state, move)


def moves_for(rules: Rules, state: Any, seat: int | None, open_table: bool) -> list[Move]:
    """Return the legal moves a page may offer: the table's (``seat=None``) or one player's."""
    if rules.is_over(state):
        return []
    return [m for m in rules.legal_moves(state) if may_make(rules, state, m, seat, open_table)]


# ---- words ---------------------------------------------------------------------------
def move_label(
    rules: Rules, move: dict[str, Any], t: Translator, names: list[str] | None = None
) -> str:
    """Return a short button label for a move (JSON form) in the page's language."""
    kind: str = move.get("kind") or ""
    card = pretty(move.get("card", "")) if move.get("card") else ""
    seat = move.get("seat")
    if rules.name == "sten" and kind == "lay" and names and isinstance(seat, int):
        # at a real table anyone may hold 7♥: the button says who lays it
        return t("{name} lays {card}", name=names[seat], card=card)
    if rules.name == "stigespill":
        return {
            "draw": t("Draw a die card"),
            "play": t("Play {card}", card=card),
            "reveal": t("{card}", card=card),  # the card alone (in the deck's letters)
        }.get(kind, kind)
    if rules.name == "sten":
        if kind == "lay":
            return t("Lay {card}", card=card)
        if kind == "sten":
            return t("Say Sten")
        if kind == "go_out":
            return t("Go out: {cards}", cards=" ".join(pretty(c) for c in move["cards"]))
        return kind
    if kind == "play":
        owner, n, source = move.get("owner"), move.get("index", 0) + 1, move.get("source") or ""
        # team play: one's own pile or the partner's, which may show the same card
        whose = (
            names[owner] if names and isinstance(owner, int) and 0 <= owner < len(names) else None
        )
        src = {
            "stock": t("the stock of {name}", name=whose) if whose else t("stock"),
            "hand": t("hand"),
            "discard": t("discard pile {n} of {name}", n=n, name=whose)
            if whose
            else t("discard pile {n}", n=n),
        }.get(source, source)
        return t(
            "{card} from {source} → pile {pile}",
            card=card,
            source=src,
            pile=move.get("pile", 0) + 1,
        )
    if kind == "discard":
        return t("Discard {card} onto discard pile {pile}", card=card, pile=move.get("pile", 0) + 1)
    if kind == "end_turn":
        return t("End turn")
    if kind == "reveal":
        return card
    if kind == "penalty":
        return t("Table-talk penalty")
    return kind


def moves_label(
    rules: Rules, moves: list[dict[str, Any]], t: Translator, names: list[str] | None = None
) -> str:
    """Return a label for a sequence of moves (JSON form), as the camera's "please confirm"
    offers them; a draw followed by its card reads as the card, and where one sequence
    holds several Stigespill draws (two draws seen at once), as who drew it."""
    draws = [m for m in moves if m.get("kind") == "draw"]
    if rules.name == "stigespill" and names and len(draws) > 1:
        said, seat = [], None
        for m in moves:
            if m.get("kind") == "draw" and isinstance(m.get("seat"), int):
                seat = m["seat"]
            elif m.get("kind") == "reveal" and seat is not None and 0 <= seat < len(names):
                said.append(t("{who} drew {card}", who=names[seat], card=pretty(m["card"])))
            else:
                said.append(move_label(rules, m, t, names))
        return " + ".join(said)
    shown = [m for m in moves if m.get("kind") != "draw"] or moves
    return " + ".join(move_label(rules, m, t, names) for m in shown)


def candidate_label(
    rules: Rules, candidate: dict[str, Any], t: Translator, names: list[str] | None = None
) -> str:
    """Return the label of a camera prompt's candidate (``{"moves", "retracted"}``, JSON): the
    moves the camera read again name the game's last moves they replace too, so the tap says
    what it takes back. A move the camera could not see, put before the game's last moves
    (which the candidate holds again), is said as not seen, with who made it (``by``: a
    Skip-Bo wild laid onto a wild, then the turn ended), then what the camera saw after."""
    moves, retracted = candidate["moves"], candidate.get("retracted")
    if not retracted:
        return moves_label(rules, moves, t, names)
    at, by = held_again(moves, retracted), candidate.get("by")
    if at is not None and isinstance(by, int) and not isinstance(by, bool):
        who = names[by] if names and 0 <= by < len(names) else f"seat {by}"
        missed = moves_label(rules, moves[:at], t, names)
        then = moves[at + len(retracted) :]
        if not then:
            return t("{name} (not seen): {missed}", name=who, missed=missed)
        said = moves_label(rules, then, t, names)
        return t("{name} (not seen): {missed}; then {moves}", name=who, missed=missed, moves=said)
    said = moves_label(rules, moves, t, names)
    replaced = moves_label(rules, retracted, t, names)
    return t("{moves} (replaces: {retracted})", moves=said, retracted=replaced)


def held_again(moves: list[dict[str, Any]], held: list[dict[str, Any]]) -> int | None:
    """Return where ``moves`` (JSON) hold the moves ``held`` again, unchanged and in a row,
    after a move put before them (one the camera could not see); else ``None``."""
    n = len(held)
    return next((i for i in range(1, len(moves) - n + 1) if moves[i : i + n] == held), None)


def last_move_text(
    rules: Rules, view: dict[str, Any], names: list[str], t: Translator | None = None
) -> str:
    """Return the referee's sentence for the last move in a seat's ``view`` (so it shows only
    what that seat may see), with names, in the page's language where ``t`` has it."""
    text = view.get("last_move") or view.get("last") or ""
    return say_named(rules.name, text, t, names) if t is not None else name_seats(text, names)


def describe_chance(
    rules: Rules, state: Any, names: list[str], t: Translator, seat: int | None = None
) -> str:
    """Return the prompt for a pending chance card ("Which card did Anna draw?"), asked of
    ``seat``'s phone ("Which card did you draw?" when it is about that player)."""
    if rules.name == "stigespill":
        about = dealing_to(rules, state)
        if about is not None:  # a strategy deal's card
            if about == seat:
                return t("Which card was dealt to you?")
            return t("Which card was dealt to {name}?", name=names[about])
        if state.turn == seat:
            return t("Which die card did you draw?")
        return t("Which die card did {name} draw?", name=names[state.turn])
    if rules.name == "skipbo":
        if state.turn_up:
            if state.turn_up[0] == seat:
                return t("Which card turned up on your stock?")
            return t("Which card turned up on {name}'s stock?", name=names[state.turn_up[0]])
        if state.turn == seat:
            return t("Which card did you draw?")
        return t("Which card did {name} draw?", name=names[state.turn])
    return t("Which card?")
