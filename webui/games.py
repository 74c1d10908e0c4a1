"""What the web layer knows about each game: set-up forms, who may see a move, move words.

The referee's views carry the game; this module only decides which legal moves a page may
offer (a move naming a hand card belongs on that player's private page, never the table's),
and puts moves into words a player reads, in the page's language.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from referee import CHANCE, Move, Rules, RulesError, make_rules
from referee.cards import CardError, parse_card, parse_cards

GAME_TITLES = {"stigespill": "Stigespill", "sten": "Sten", "skipbo": "Skip-Bo"}
COLOUR_NAMES = {
    "red": "#d62828",
    "blue": "#1d4ed8",
    "green": "#15803d",
    "yellow": "#ca8a04",
    "purple": "#7c3aed",
    "pink": "#db2777",
    "teal": "#0891b2",
    "orange": "#ea580c",
    "grey": "#4b5563",
    "gray": "#4b5563",
    "black": "#111827",
    "white": "#e5e7eb",
    # the same in Norwegian, Danish and Swedish
    "rød": "#d62828",
    "röd": "#d62828",
    "blå": "#1d4ed8",
    "grønn": "#15803d",
    "grøn": "#15803d",
    "grön": "#15803d",
    "gul": "#ca8a04",
    "lilla": "#7c3aed",
    "rosa": "#db2777",
    "oransje": "#ea580c",
    "grå": "#4b5563",
    "svart": "#111827",
    "sort": "#111827",
    "hvit": "#e5e7eb",
    "hvid": "#e5e7eb",
    "vit": "#e5e7eb",
}
COLOURS = (
    "#d62828",
    "#1d4ed8",
    "#15803d",
    "#ca8a04",
    "#7c3aed",
    "#db2777",
    "#0891b2",
    "#ea580c",
    "#4b5563",
    "#0f766e",
)
MAX_NAME = 24


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


def _int(form: dict[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    raw = form.get(key, default)
    if raw in (None, ""):
        return default
    if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
        raise SetupError(f"{key} must be a whole number, not {raw!r}")
    try:
        value = int(raw)
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


def _road(raw: Any) -> list[str]:
    """Return a Stigespill road's card codes from text ("7S 8S …") or a list of codes."""
    if not isinstance(raw, str | list) or not all(isinstance(c, str) for c in raw):
        raise SetupError("road must be card codes: text like '7S 8S 9S' or a list of codes")
    try:
        return [c.code for c in parse_cards(raw)]
    except CardError as e:
        raise SetupError(f"road: {e}") from None


def _names(form: dict[str, Any], count: int) -> list[str]:
    raw = form.get("names", "")
    if isinstance(raw, str):
        given = [n.strip() for n in re.split(r"[,\n]", raw) if n.strip()]
    elif isinstance(raw, list) and all(isinstance(n, str) for n in raw):
        given = [n.strip() for n in raw if n.strip()]
    else:
        raise SetupError("names must be text, one name per player")
    for n in given:
        if len(n) > MAX_NAME:
            raise SetupError(f"the name {n[:30]!r}… is longer than {MAX_NAME} characters")
    if len(given) > count:
        raise SetupError(f"{len(given)} names for {count} players")
    names = given + [f"Player {k + 1}" for k in range(len(given), count)]
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
                f"unknown colour {word[:20]!r}; use #rrggbb or one of "
                + ", ".join(n for n in list(COLOUR_NAMES)[:12] if n != "gray")
            )
        chosen.append(colour)
    if len(chosen) > count:
        raise SetupError(f"{len(chosen)} colours for {count} tokens")
    if len(set(chosen)) != len(chosen):
        raise SetupError("every token needs a different colour")
    out = chosen + [c for c in COLOURS if c not in chosen]
    return (out * (count // len(out) + 1))[:count]


def parse_setup(game: Any, form: dict[str, Any]) -> Setup:
    """Validate a new-game form (strings or JSON values); raise :class:`SetupError`."""
    if not isinstance(game, str) or game not in GAME_TITLES:
        shown = repr(game)[:30]
        raise SetupError(f"unknown game {shown}; expected one of {', '.join(GAME_TITLES)}")
    players = _int(form, "players", 2, 1, 10)
    deal = form.get("deal", "app")
    if deal not in ("app", "table"):
        raise SetupError(f"deal must be 'app' or 'table', not {deal!r}")
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
            config["road"] = _road(road)
        seats = config.get("tokens", players)
        names = _names(form, players)
        if players == 1:
            names = [f"{names[0]} {k + 1}" for k in range(seats)]
    elif game == "sten":
        names = _names(form, players)
        config["known_hands"] = deal == "app"
        config["names"] = names
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
        names = _names(form, players)
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


def start_state(rules: Rules, rng: random.Random, options: dict[str, Any]) -> Any:
    """Return a new game's first state: the app deals, or the real table does (``deal``)."""
    if options.get("deal") == "table" and hasattr(rules, "table_state"):
        return rules.table_state(rng)
    return rules.initial_state(rng)


# ---- who may see a move -------------------------------------------------------------
def chance_owner(rules: Rules, state: Any) -> int | None:
    """Return the seat whose page enters the pending chance card, ``None`` for the table."""
    if rules.name == "skipbo":
        # A card drawn into a hand is that player's secret; a stock turning up is public.
        return state.turn if state.owed and not state.turn_up else None
    if rules.name == "stigespill" and state.pending == "deal":
        return sum(len(h) for h in state.hands) % rules.seats
    return None


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
    chance card: the player whose turn it is, who drew it)."""
    seat = getattr(move, "seat", None)
    if isinstance(seat, int) and not isinstance(seat, bool):
        return seat
    on = rules.to_move(state)
    return getattr(state, "turn", None) if on == CHANCE else on


def may_make(rules: Rules, state: Any, move: Move, seat: int | None, open_table: bool) -> bool:
    """Return whether a page (the table's, or ``seat``'s) may make ``move`` now."""
    owner = private_to(rules, state, move)
    if seat is None:
        return owner is None or open_table
    if owner is not None:
        return owner == seat
    return mover(rules, state, move) == seat


def moves_for(rules: Rules, state: Any, seat: int | None, open_table: bool) -> list[Move]:
    """Return the legal moves a page may offer: the table's (``seat=None``) or one player's."""
    if rules.is_over(state):
        return []
    return [m for m in rules.legal_moves(state) if may_make(rules, state, m, seat, open_table)]


# ---- words ---------------------------------------------------------------------------
def pretty(code: str) -> str:
    """Return a card code as players write it: ``Q♥``, ``10♠``, ``Joker``, ``SB 7``, ``SB ★``."""
    try:
        c = parse_card(code)
    except (CardError, TypeError):
        return str(code)
    if c.kind == "skipbo":
        return "★" if c.value == 0 else str(c.value)
    return c.pretty


def name_seats(text: str, names: list[str]) -> str:
    """Replace the referee's "seat 2" / "Player 3" / "Token 1" with the players' names."""

    def seat(m: re.Match) -> str:
        k = int(m.group(1))
        return names[k] if 0 <= k < len(names) else m.group(0)

    def numbered(m: re.Match) -> str:
        k = int(m.group(2)) - 1
        return names[k] if 0 <= k < len(names) else m.group(0)

    text = re.sub(r"\bseat (\d+)", seat, text)
    text = re.sub(r"\b(Player|Token) (\d+)", numbered, text)
    # Skip-Bo cards read as their numbers; the wild by its name.
    text = re.sub(r"\bSBW\b", "Skip-Bo", text)
    return re.sub(r"\bSB(\d{1,2})\b", r"\1", text)


def move_label(rules: Rules, move: dict[str, Any], t, names: list[str] | None = None) -> str:
    """Return a short button label for a move (JSON form) in the page's language."""
    kind = move.get("kind")
    card = pretty(move.get("card", "")) if move.get("card") else ""
    seat = move.get("seat")
    if rules.name == "sten" and kind == "lay" and names and isinstance(seat, int):
        # at a real table anyone may hold 7♥: the button says who lays it
        return t("{name} lays {card}", name=names[seat], card=card)
    if rules.name == "stigespill":
        return {
            "draw": t("Draw a die card"),
            "play": t("Play {card}", card=card),
            "reveal": card,
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
        src = {
            "stock": t("stock"),
            "hand": t("hand"),
            "discard": t("discard pile {n}", n=move.get("index", 0) + 1),
        }.get(move.get("source"), move.get("source"))
        return t(
            "{card} from {source} → pile {pile}",
            card=card,
            source=src,
            pile=move.get("pile", 0) + 1,
        )
    if kind == "discard":
        return t("Discard {card} on {pile}", card=card, pile=move.get("pile", 0) + 1)
    if kind == "end_turn":
        return t("End turn")
    if kind == "reveal":
        return card
    if kind == "penalty":
        return t("Table-talk penalty")
    return kind


def last_move_text(
    rules: Rules, view: dict[str, Any], names: list[str], seat: int | None, t=None
) -> str:
    """Return the referee's sentence for the last move, with names, safe for ``seat``'s eyes,
    in the page's language where ``t`` has it (Stigespill's sentences; others stay English)."""
    text = view.get("last_move") or view.get("last") or ""
    if t is not None:
        text = referee_sentence(rules.name, text, t)
    return name_seats(text, names)


def referee_sentence(game: str, text: str, t) -> str:
    """Return a referee sentence (a move, a hint) said with ``t`` where the game's sentences
    are known (Stigespill, Sten); Skip-Bo's, and any of another shape, unchanged."""
    say = {"stigespill": stigespill_sentence, "sten": sten_sentence, "skipbo": skipbo_sentence}.get(
        game
    )
    return say(text, t) if say else text


def say_known(sentences: list[tuple[str, str]], text: str, t) -> str | None:
    """Return ``text`` said with ``t`` when it is one of ``sentences`` (its pattern, and the
    key its parts fill), else ``None``."""
    for pattern, key in sentences:
        m = re.fullmatch(pattern, text)
        if m:
            return t(key, **m.groupdict())
    return None


# Stigespill's referee sentences, read back into parts to be said in the page's language: the
# referee speaks English only (it knows no pages), and its few sentence shapes are fixed.
_WHO = r"(?:Player|Token) \d+"
_PLACE = r"the start|the goal|\S+ \(card \d+\)"
_STIGESPILL_SENTENCES = [
    (rf"(?P<who>{_WHO}) begins", "{who} begins"),
    (rf"(?P<who>{_WHO}) draws from the die pile", "{who} draws from the die pile"),
    (rf"A card is dealt to (?P<who>{_WHO})", "A card is dealt to {who}"),
    (
        rf"A card is dealt to (?P<who>{_WHO}); the deal is done and (?P<first>{_WHO}) begins",
        "A card is dealt to {who}; the deal is done and {first} begins",
    ),
    (
        rf"(?P<who>{_WHO}) drew the joker: the die and discard piles are shuffled together into"
        rf" a new die pile \((?P<n>\d+) cards\), and (?P=who) draws again",
        "{who} drew the joker: the die and discard piles are shuffled together into a new die"
        " pile ({n} cards), and {who} draws again",
    ),
    (
        r"Draw \(the classic game has only draws\): about (?P<n>[\d.]+) turns to finish",
        "Draw (the classic game has only draws): about {n} turns to finish",
    ),
    (
        r"Draw \(no hand cards left\): about (?P<n>[\d.]+) turns to finish",
        "Draw (no hand cards left): about {n} turns to finish",
    ),
    (
        r"Draw: about (?P<n>[\d.]+) turns to finish; keep your cards for later",
        "Draw: about {n} turns to finish; keep your cards for later",
    ),
]
# every sentence the function below says through a variable (the literal ones are found)
STIGESPILL_KEYS = (
    *(key for _, key in _STIGESPILL_SENTENCES),
    "{who} plays {card}",
    "the start",
    "the goal",
    " (drawing: {n})",
)
_STIGESPILL_PLAY_HINT = re.compile(
    rf"Play (?P<card>\S+) \(to (?P<to>{_PLACE})\): about (?P<n>[\d.]+) turns to finish"
    r"(?: \(drawing: (?P<drawing>[\d.]+)\))?"
)
_STIGESPILL_STEP = re.compile(
    rf"(?P<who>{_WHO}) (?P<verb>drew|plays) (?P<card>\S+): (?:(?P<goal>reaches the goal and wins)"
    rf"|walks into the goal and back out (?P<back>\d+) to (?P<bounced>{_PLACE})"
    rf"|lands on (?P<landed>{_PLACE})|moves to (?P<moved>{_PLACE}))"
    rf"(?:, climbs a ladder to (?P<ladder>{_PLACE})|, slides down a snake to (?P<snake>{_PLACE}))?"
)


def stigespill_sentence(text: str, t) -> str:
    """Return a Stigespill referee sentence (a move, a hint) said with ``t``; one of another
    shape unchanged."""
    whole = say_known(_STIGESPILL_SENTENCES, text, t)
    if whole is not None:
        return whole

    def place(p: str) -> str:
        if p in ("the start", "the goal"):
            return t(p)
        card, n = re.fullmatch(r"(\S+) \(card (\d+)\)", p).groups()
        return t("{card} (card {n})", card=card, n=n)

    m = _STIGESPILL_PLAY_HINT.fullmatch(text)
    if m is not None:
        g = m.groupdict()
        hint = t(
            "Play {card} (to {place}): about {n} turns to finish",
            card=g["card"],
            place=place(g["to"]),
            n=g["n"],
        )
        drawing = g["drawing"]
        return hint + (t(" (drawing: {n})", n=drawing) if drawing else "")
    m = _STIGESPILL_STEP.fullmatch(text)
    if m is None:
        return text
    g = m.groupdict()

    head = t("{who} drew {card}" if g["verb"] == "drew" else "{who} plays {card}", **g)
    if g["goal"]:
        rest = t("reaches the goal and wins")
    elif g["back"]:
        rest = t(
            "walks into the goal and back out {n} to {place}",
            n=g["back"],
            place=place(g["bounced"]),
        )
    elif g["landed"]:
        rest = t("lands on {place}", place=place(g["landed"]))
    else:
        rest = t("moves to {place}", place=place(g["moved"]))
    if g["ladder"]:
        rest += t(", climbs a ladder to {place}", place=place(g["ladder"]))
    elif g["snake"]:
        rest += t(", slides down a snake to {place}", place=place(g["snake"]))
    return f"{head}: {rest}"


# Sten's referee sentences, read back the same way. Players go by their names here (any text),
# so a name is whatever stands before the sentence's fixed words.
_CARD = r"(?:10|[2-9AJQK])[♠♥♦♣]"
_CARDS = rf"{_CARD}(?: {_CARD})*"
_LIST = rf"{_CARD}(?:, {_CARD})*(?: and {_CARD})?"  # "6♥, 5♥ and 4♥"
_SUIT = r"spades|hearts|diamonds|clubs"
_STEN_SENTENCES = [
    (rf"Waiting for (?P<card>{_CARD})", "Waiting for {card}"),
    (
        rf"(?P<who>.+) holds (?P<card>{_CARD}) and lays it first",
        "{who} holds {card} and lays it first",
    ),
    (r"(?P<who>.+) said Sten and keeps the stone", "{who} said Sten and keeps the stone"),
    (r"(?P<who>.+) said Sten and takes the stone", "{who} said Sten and takes the stone"),
    (
        r"(?P<who>.+) said Sten and takes the stone from (?P<other>.+)",
        "{who} said Sten and takes the stone from {other}",
    ),
    (
        rf"(?P<who>.+) tried to go out with (?P<cards>{_CARDS}), but (?P<card>{_CARD}) did not"
        r" fit; the cards go back and (?P=who) takes the stone",
        "{who} tried to go out with {cards}, but {card} did not fit; the cards go back and {who}"
        " takes the stone",
    ),
    (r"nothing fits: say Sten and take the stone", "nothing fits: say Sten and take the stone"),
    (rf"you can go out now: (?P<cards>{_CARDS})", "you can go out now: {cards}"),
    (
        rf"the referee does not know your hand; these cards fit: (?P<cards>{_CARDS})",
        "the referee does not know your hand; these cards fit: {cards}",
    ),
    (
        rf"Lay (?P<card>{_CARD}): it is the only card that fits",
        "Lay {card}: it is the only card that fits",
    ),
    (
        rf"Lay (?P<card>{_CARD}): it opens nothing for the others",
        "Lay {card}: it opens nothing for the others",
    ),
    (
        rf"Lay (?P<card>{_CARD}): none of your cards that fit frees another of yours; this one"
        r" opens least",
        "Lay {card}: none of your cards that fit frees another of yours; this one opens least",
    ),
    (r"it is (?P<who>.+)'s turn", "it is {who}'s turn"),
    (r"the game is over: (?P<who>.+) went out", "the game is over: {who} went out"),
]
_STEN_LAY_HINT = re.compile(
    rf"Lay (?P<card>{_CARD}): it (?:frees your (?P<freed>{_LIST})"
    rf"|moves (?P<suit>{_SUIT}) towards your (?P<towards>{_LIST}))"
)
_STEN_LAID = re.compile(
    rf"(?P<who>.+?) laid (?P<cards>{_CARDS})(?P<once> at once)?"
    rf"(?:: the (?P<end>upper|lower) (?P<suit>{_SUIT}) pile leaves the table)?"
    r"(?: and goes out(?: with the stone: (?P<alone>.+) wins, nobody loses"
    r"|: (?P<winner>.+) wins, (?P<loser>.+) has the stone and loses"
    r"|: (?P<first>.+) wins; nobody took the stone))?"
)
# every sentence sten_sentence says through a variable (the literal ones are found)
STEN_KEYS = (
    *(key for _, key in _STEN_SENTENCES),
    "spades",
    "hearts",
    "diamonds",
    "clubs",
    "the upper {suit} pile leaves the table",
    "the lower {suit} pile leaves the table",
    "{who} laid {cards}",
)


def sten_sentence(text: str, t) -> str:
    """Return a Sten referee sentence (a move, a hint) said with ``t``; one of another shape
    unchanged."""
    whole = say_known(_STEN_SENTENCES, text, t)
    if whole is not None:
        return whole

    def listing(cards: str) -> str:  # "6♥, 5♥ and 4♥", with the page's "and"
        *rest, last = re.split(r", | and ", cards)
        return f"{', '.join(rest)}{t(' and ')}{last}" if rest else last

    m = _STEN_LAY_HINT.fullmatch(text)
    if m is not None:
        g = m.groupdict()
        if g["freed"]:
            return t("Lay {card}: it frees your {cards}", card=g["card"], cards=listing(g["freed"]))
        return t(
            "Lay {card}: it moves {suit} towards your {cards}",
            card=g["card"],
            suit=t(g["suit"]),
            cards=listing(g["towards"]),
        )
    m = _STEN_LAID.fullmatch(text)
    if m is None:
        return text
    g = m.groupdict()
    out = t("{who} laid {cards} at once" if g["once"] else "{who} laid {cards}", **g)
    if g["end"]:
        pile = f"the {g['end']} {{suit}} pile leaves the table"
        out += ": " + t(pile, suit=t(g["suit"]))
    if g["alone"]:
        out += t(" and goes out with the stone: {who} wins, nobody loses", who=g["alone"])
    elif g["winner"]:
        out += t(
            " and goes out: {who} wins, {loser} has the stone and loses",
            who=g["winner"],
            loser=g["loser"],
        )
    elif g["first"]:
        out += t(" and goes out: {who} wins; nobody took the stone", who=g["first"])
    return out


def describe_chance(rules: Rules, state: Any, names: list[str], t) -> str:
    """Return the prompt for a pending chance card ("Which card did Anna draw?")."""
    if rules.name == "stigespill":
        if state.pending == "deal":
            seat = chance_owner(rules, state)
            return t("Which card was dealt to {name}?", name=names[seat])
        return t("Which die card did {name} draw?", name=names[state.turn])
    if rules.name == "skipbo":
        if state.turn_up:
            return t("Which card turned up on {name}'s stock?", name=names[state.turn_up[0]])
        return t("Which card did {name} draw?", name=names[state.turn])
    return t("Which card?")


# Skip-Bo's referee sentences, read back the same way (seats as "seat 2"; named later).
_SEAT = r"seat \d+"
_STALL = "; a full round passed without a play and nothing to draw: game over"
_SKIPBO_SENTENCES = [
    (r"the stocks are dealt", "the stocks are dealt"),
    (rf"(?P<who>{_SEAT}) draws a card", "{who} draws a card"),
    (rf"(?P<who>{_SEAT})'s stock turns up (?P<card>\S+)", "{who}'s stock turns up {card}"),
    (
        rf"table talk: (?P<who>{_SEAT}) takes (?P<n>\d+) cards from the draw pile onto its stock",
        "table talk: {who} takes {n} cards from the draw pile onto its stock",
    ),
    (r"the game is over", "the game is over"),
    (r"waiting for the drawn or turned-up card", "waiting for the drawn or turned-up card"),
    (rf"it is (?P<who>{_SEAT})'s turn", "it is {who}'s turn"),
    (
        r"no play helps; discard (?P<card>\S+) onto discard pile (?P<n>\d+)",
        "no play helps; discard {card} onto discard pile {n}",
    ),
    (
        r"nothing to play and an empty hand: end the turn",
        "nothing to play and an empty hand: end the turn",
    ),
]
_SKIPBO_TURN_END = re.compile(
    rf"(?P<who>{_SEAT}) (?:discards (?P<card>\S+) onto discard pile (?P<n>\d+)"
    rf"|(?P<empty>ends the turn with an empty hand))(?P<stall>{re.escape(_STALL)})?"
)
_SKIPBO_PLAY = re.compile(
    rf"(?P<who>{_SEAT}) plays (?P<card>\S+) from (?:(?P<owner>{_SEAT})'s )?"
    r"(?:(?P<hand>hand)|(?P<stock>stock)|discard pile (?P<pile>\d+))"
    r" onto building pile (?P<to>\d+)(?: \((?P<height>\d+)\)|(?P<full>, which reaches 12 and is"
    rf" set aside))(?:; (?P<won>{_SEAT}(?: and {_SEAT})*) won)?"
)
_SKIPBO_HINT = re.compile(
    r"play (?P<card>\S+) from the (?P<source>hand|stock|discard) onto building pile (?P<to>\d+):"
    r" (?P<n>\d+) plays?(?: reaching the stock \((?P<stock>\d+)\))?"
)
# every sentence skipbo_sentence says through a variable (the literal ones are found)
SKIPBO_KEYS = (
    *(key for _, key in _SKIPBO_SENTENCES),
    "{who} discards {card} onto discard pile {n}",
    "{who} ends the turn with an empty hand",
    "from discard pile {n}",
    "from {who}'s discard pile {n}",
    "from the hand",
    "from the stock",
    "from the discard",
    "{n} plays",
)


def skipbo_sentence(text: str, t) -> str:
    """Return a Skip-Bo referee sentence (a move, a hint) said with ``t``; one of another shape
    unchanged."""
    whole = say_known(_SKIPBO_SENTENCES, text, t)
    if whole is not None:
        return whole
    m = _SKIPBO_TURN_END.fullmatch(text)
    if m is not None:
        g = m.groupdict()
        if g["empty"]:
            out = t("{who} ends the turn with an empty hand", who=g["who"])
        else:
            out = t("{who} discards {card} onto discard pile {n}", **g)
        return out + (
            t("; a full round passed without a play and nothing to draw: game over")
            if g["stall"]
            else ""
        )
    m = _SKIPBO_PLAY.fullmatch(text)
    if m is not None:
        g = m.groupdict()
        if g["hand"]:
            source = t("from hand")
        elif g["owner"]:
            source = (
                t("from {who}'s stock", who=g["owner"])
                if g["stock"]
                else t("from {who}'s discard pile {n}", who=g["owner"], n=g["pile"])
            )
        else:
            source = t("from stock") if g["stock"] else t("from discard pile {n}", n=g["pile"])
        out = t(
            "{who} plays {card} {source} onto building pile {n}",
            who=g["who"],
            card=g["card"],
            source=source,
            n=g["to"],
        )
        out += t(", which reaches 12 and is set aside") if g["full"] else f" ({g['height']})"
        if g["won"]:
            out += t("; {names} won", names=g["won"].replace(" and ", t(" and ")))
        return out
    m = _SKIPBO_HINT.fullmatch(text)
    if m is None:
        return text
    g = m.groupdict()
    source = t(f"from the {g['source']}")
    plays = t("{n} play" if g["n"] == "1" else "{n} plays", n=g["n"])
    if g["stock"]:
        plays += t(" reaching the stock ({n})", n=g["stock"])
    return t(
        "play {card} {source} onto building pile {n}: {plays}",
        card=g["card"],
        source=source,
        n=g["to"],
        plays=plays,
    )
