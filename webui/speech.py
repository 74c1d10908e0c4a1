"""The referee's English sentences (and the camera's questions, a set-up's problems) said in
the page's language.

The referee speaks English only (it knows no pages), and its sentence shapes are fixed: each
sentence is read back into its parts (a card, a seat, a number) and said again through the
page's translator ``t``. A sentence of a shape not known here is looked up whole (a page's
own words, such as its refusals), else left as it is.
"""

from __future__ import annotations

import re
from typing import Any

from referee.cards import CardError, parse_card
from webui.i18n import Quoted, Translator


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


def say_named(game: str, text: str, t: Translator, names: list[str]) -> str:
    """Return a referee sentence of ``game`` said with ``t``, its seats named ``names``
    (named before each part is said: "{who}s" in Danish is "Jens'" for Jens, not "Jenss")."""

    def named(text: str, **fields: Any) -> str:
        return t(text, **{k: name_seats(v, names) if isinstance(v, str) else v
                         for k, v in fields.items()})  # fmt: skip

    return name_seats(referee_sentence(game, text, named), names)


def referee_sentence(game: str, text: str, t: Translator) -> str:
    """Return a sentence of ``game``'s referee (a move, a hint, a refused move's reason) or
    of the camera's guard said with ``t``; one of a shape not known here is looked up whole
    (a page's own words), else unchanged."""
    m = OUT_OF_SYNC.fullmatch(text)
    if m is not None:
        return t(_OUT_OF_SYNC_KEY, why=referee_sentence(game, m["why"], t))
    say = {"stigespill": stigespill_sentence, "sten": sten_sentence, "skipbo": skipbo_sentence}.get(
        game
    )
    return say(text, t) if say else t(text)


def say_known(sentences: list[tuple[str, str]], text: str, t: Translator) -> str | None:
    """Return ``text`` said with ``t`` when it is one of ``sentences`` (its pattern, and the
    key its parts fill), else ``None``. A ``cards`` part listing cards ("6♥, 5♥ and 4♥") is
    listed with the page's "and"; a part quoted as Python quotes ('xx', or 'a', 'b') is quoted
    as the page's language quotes (see :class:`webui.i18n.Quoted`)."""
    for pattern, key in sentences:
        m = re.fullmatch(pattern, text)
        if m:
            parts: dict[str, Any] = {k: _requoted(v) for k, v in m.groupdict().items()}
            if parts.get("cards"):
                parts["cards"] = _listing(parts["cards"], t)
            if parts.get("colours"):  # the colour names a page's language knows
                parts["colours"] = ", ".join(t(c) for c in parts["colours"].split(", "))
            return t(key, **parts)
    return None


_QUOTES_LIST = re.compile(r"(?:'[^'\\]*'|\"[^\"\\]*\")(?:, (?:'[^'\\]*'|\"[^\"\\]*\"))*")


def _requoted(part: str | None) -> Any:
    """Return a sentence's part that is one or more Python-quoted texts as :class:`Quoted`
    (said in the page's quotation marks); any other part as it is."""
    if part is None or not _QUOTES_LIST.fullmatch(part):
        return part
    return Quoted(*(q[1:-1] for q in re.findall(r"'[^']*'|\"[^\"]*\"", part)))


def _listing(cards: str, t: Translator) -> str:
    """Return "6♥, 5♥ and 4♥" with the page's "and" (cards apart by spaces stay as they are)."""
    *rest, last = re.split(r", | and ", cards)
    return f"{', '.join(rest)}{t(' and ')}{last}" if rest else last


def _literal(text: str) -> tuple[str, str]:
    """A sentence without parts: its pattern is itself."""
    return re.escape(text), text


# A refused move's reason is read back the same way. Only the reasons a page can meet are
# known (a well-formed move at the wrong time); a malformed move's (a seat that is no number)
# stays English: no page sends one.
_NOT_YOUR_TURN = (
    r"it is (?P<who>.+)'s turn, not (?P<other>.+)'s",
    "it is {who}'s turn, not {other}'s",
)


# Stigespill's referee sentences (its moves, hints and refusals).
_WHO = r"(?:Player|Token) \d+"
_PLACE = r"the start|the goal|\S+ \(card \d+\)"
_STIGESPILL_SENTENCES = [
    (rf"(?P<who>{_WHO}) begins", "{who} begins"),
    (
        r"Deal (?P<n>\d+) die cards to each seat \(never the joker\)",
        "Deal {n} die cards to each seat (never the joker)",
    ),
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
_STIGESPILL_SENTENCES += [
    _NOT_YOUR_TURN,
    (
        rf"the game is over: (?P<who>{_WHO}) reached the goal",
        "the game is over: {who} reached the goal",
    ),
    _literal("the cards are being dealt: reveal the next dealt card first"),
    (
        rf"(?P<who>{_WHO}) has drawn: reveal the drawn card first",
        "{who} has drawn: reveal the drawn card first",
    ),
    _literal("every die card but the joker is in a hand: play a hand card instead"),
    _literal("the classic game has no hands: draw from the die pile"),
    (
        rf"(?P<card>.+) is not in (?P<who>{_WHO})'s hand \(hand: empty\)",
        "{card} is not in {who}'s hand (hand: empty)",
    ),
    (
        rf"(?P<card>.+) is not in (?P<who>{_WHO})'s hand \(hand: (?P<held>.+)\)",
        "{card} is not in {who}'s hand (hand: {held})",
    ),
    (
        rf"no card is being drawn: it is (?P<who>{_WHO})'s turn to draw",
        "no card is being drawn: it is {who}'s turn to draw",
    ),
    (
        rf"no card is being drawn: it is (?P<who>{_WHO})'s turn to draw or play a hand card",
        "no card is being drawn: it is {who}'s turn to draw or play a hand card",
    ),
    (r"(?P<card>.+) is not in the die pile", "{card} is not in the die pile"),
    _literal("the joker is never dealt: swap it for the next card and shuffle it back"),
]
# every sentence the function below says through a variable (the literal ones are found)
STIGESPILL_KEYS = (
    *(key for _, key in _STIGESPILL_SENTENCES),
    "{who} plays {card}",
    "the start",
    "the goal",
    " (drawing instead: {n})",
)
_STIGESPILL_PLAY_HINT = re.compile(
    rf"Play (?P<card>\S+) to (?P<to>{_PLACE}): about (?P<n>[\d.]+) turns to finish"
    r"(?: \(drawing instead: (?P<drawing>[\d.]+)\))?"
)
_STIGESPILL_STEP = re.compile(
    rf"(?P<who>{_WHO}) (?P<verb>drew|plays) (?P<card>\S+): (?:(?P<goal>reaches the goal and wins)"
    rf"|walks into the goal and back out (?P<back>\d+) to (?P<bounced>{_PLACE})"
    rf"|lands on (?P<landed>{_PLACE})|moves to (?P<moved>{_PLACE}))"
    rf"(?:, climbs a ladder to (?P<ladder>{_PLACE})|, slides down a snake to (?P<snake>{_PLACE}))?"
)


def whole_turns(n: str) -> str:
    """Return the referee's expected turns ("12.8") as a family counts them ("13"): a hint
    says about how many turns, and nobody plays a tenth of one (halves round up)."""
    return str(int(float(n) + 0.5))


_ABOUT_TURNS = re.compile(r"about (\d+\.\d+) turns")
_ROAD_CARD = re.compile(r"(?P<card>\S+) \(card (?P<n>\d+)\)")  # a _PLACE on the road


def stigespill_sentence(text: str, t: Translator) -> str:
    """Return a Stigespill referee sentence (a move, a hint, a refused move's reason) said with
    ``t``; one of another shape looked up whole (a page's own words), else unchanged."""
    text = _ABOUT_TURNS.sub(lambda m: f"about {whole_turns(m[1])} turns", text)
    whole = say_known(_STIGESPILL_SENTENCES, text, t)
    if whole is not None:
        return whole

    def place(p: str) -> str:
        on_road = _ROAD_CARD.fullmatch(p)
        if on_road is None:  # the start, the goal
            return t(p)
        return t("{card} (card {n})", **on_road.groupdict())

    m = _STIGESPILL_PLAY_HINT.fullmatch(text)
    if m is not None:
        g = m.groupdict()
        hint = t(
            "Play {card} to {place}: about {n} turns to finish",
            card=g["card"],
            place=place(g["to"]),
            n=g["n"],
        )
        if not g["drawing"]:
            return hint
        drawing = whole_turns(g["drawing"])
        if drawing == g["n"]:  # "about 13 (drawing instead: 13)" would leave the play unexplained
            return hint + t(" (drawing instead: a little more)")
        return hint + t(" (drawing instead: {n})", n=drawing)
    m = _STIGESPILL_STEP.fullmatch(text)
    if m is None:
        return t(text)  # a page's own words (a refusal), else unchanged
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
_STEN_SENTENCES += [
    _NOT_YOUR_TURN,
    _literal("say who laid 7♥: with unknown hands the referee does not know who holds it"),
    _literal("7♥ must be laid first"),
    (rf"you cannot say Sten: (?P<card>{_CARD}) fits", "you cannot say Sten: {card} fits"),
    (rf"you cannot say Sten: (?P<cards>{_LIST}) fit", "you cannot say Sten: {cards} fit"),
    _literal("to go out, name your cards in the order you lay them"),
    (rf"(?P<card>{_CARD}) is named twice", "{card} is named twice"),
    (
        rf"to go out you must lay all (?P<n>\d+) of your cards; (?P<card>{_CARD}) is missing",
        "to go out you must lay all {n} of your cards; {card} is missing",
    ),
    (
        rf"to go out you must lay all (?P<n>\d+) of your cards; (?P<cards>{_LIST}) are missing",
        "to go out you must lay all {n} of your cards; {cards} are missing",
    ),
    (
        r"to go out (?P<who>.+) must lay all (?P<n>\d+) cards in the hand, not (?P<k>\d+)",
        "to go out {who} must lay all {n} cards in the hand, not {k}",
    ),
    (r"Sten is played without (?P<card>.+)", "Sten is played without {card}"),
    (rf"you do not hold (?P<card>{_CARD})", "you do not hold {card}"),
    (
        rf"you do not hold (?P<card>{_CARD}) \(it is already on the table\)",
        "you do not hold {card} (it is already on the table)",
    ),
    (rf"(?P<card>{_CARD}) has already left the table", "{card} has already left the table"),
    (rf"(?P<card>{_CARD}) has already been laid", "{card} has already been laid"),
]
_RANK = r"10|[2-9AJQK]"
_STEN_MISFIT = re.compile(  # referee/sten.py: Sten._why_not
    rf"(?P<card>{_CARD}) does not fit: (?:the (?P<seven>{_CARD}) is not down yet"
    rf"|only the (?P<alone>{_CARD}) of (?P<suit>{_SUIT}) is down"
    rf"|(?P<suits>{_SUIT}) stand at (?P<low>{_RANK})–(?P<high>{_RANK}))"
    r"(?: \(the (?P<gone>lower|upper|lower and upper) piles? ha(?:s|ve) left the table\))?"
    rf"(?:; only (?P<only>{_CARD}(?: or {_CARD})*) fits? there)?"
)
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
    "the {card} is not down yet",
    "only the {card} of {suit} is down",
    "{suit} stand at {low}–{high}",
    " (the lower pile has left the table)",
    " (the upper pile has left the table)",
    " (the lower and upper piles have left the table)",
    "; only {card} fits there",
    "; only {cards} fit there",
)


def sten_sentence(text: str, t: Translator) -> str:
    """Return a Sten referee sentence (a move, a hint, a refused move's reason) said with
    ``t``; one of another shape looked up whole (a page's own words), else unchanged."""
    whole = say_known(_STEN_SENTENCES, text, t)
    if whole is not None:
        return whole

    m = _STEN_LAY_HINT.fullmatch(text)
    if m is not None:
        g = m.groupdict()
        if g["freed"]:
            return t(
                "Lay {card}: it frees your {cards}", card=g["card"], cards=_listing(g["freed"], t)
            )
        return t(
            "Lay {card}: it moves {suit} towards your {cards}",
            card=g["card"],
            suit=t(g["suit"]),
            cards=_listing(g["towards"], t),
        )
    m = _STEN_MISFIT.fullmatch(text)
    if m is not None:
        return _sten_misfit(m.groupdict(), t)
    m = _STEN_LAID.fullmatch(text)
    if m is None:
        return t(text)  # a page's own words (a refusal), else unchanged
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


def _sten_misfit(g: dict[str, str], t: Translator) -> str:
    """Say why a card does not fit: how its suit stands, and what would fit there."""
    if g["seven"]:
        stand = t("the {card} is not down yet", card=g["seven"])
    elif g["alone"]:
        stand = t("only the {card} of {suit} is down", card=g["alone"], suit=t(g["suit"]))
    else:
        stand = t("{suit} stand at {low}–{high}", suit=t(g["suits"]), low=g["low"], high=g["high"])
    if g["gone"]:
        many = "piles have" if g["gone"] == "lower and upper" else "pile has"
        stand += t(f" (the {g['gone']} {many} left the table)")
    only = (g["only"] or "").split(" or ")
    if len(only) == 1 and only[0]:
        stand += t("; only {card} fits there", card=only[0])
    elif len(only) > 1:
        stand += t("; only {cards} fit there", cards=t(" or ").join(only))
    return t("{card} does not fit: {why}", card=g["card"], why=stand)


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
_SKIPBO_SENTENCES += [
    _NOT_YOUR_TURN,
    _literal("no card is being drawn or turned up now"),
    (
        r"(?P<card>\S+) cannot be drawn: no unseen (?P=card) is left",
        "{card} cannot be drawn: no unseen {card} is left",
    ),
    _literal("first say which card was drawn"),
    _literal("first say which card was turned up"),
    (
        r"the turn ends with a discard: put one of your (?P<n>\d+) hand cards onto a discard pile",
        "the turn ends with a discard: put one of your {n} hand cards onto a discard pile",
    ),
    (r"(?P<card>\S+) is not in your hand", "{card} is not in your hand"),
    (
        rf"(?P<who>{_SEAT}) may play only from their own stock and discard piles",
        "{who} may play only from their own stock and discard piles",
    ),
    (
        rf"(?P<who>{_SEAT}) may play only from their own stock and discard piles"
        r" and their partner's",
        "{who} may play only from their own stock and discard piles and their partner's",
    ),
    _literal("you may play only from your own hand"),
    _literal("your stock is empty"),
    _literal("your partner's stock is empty"),
    (
        r"the top of your stock is (?P<top>\S+), not (?P<card>\S+)",
        "the top of your stock is {top}, not {card}",
    ),
    (
        r"the top of your partner's stock is (?P<top>\S+), not (?P<card>\S+)",
        "the top of your partner's stock is {top}, not {card}",
    ),
    (r"your discard pile (?P<n>\d+) is empty", "your discard pile {n} is empty"),
    (
        r"your partner's discard pile (?P<n>\d+) is empty",
        "your partner's discard pile {n} is empty",
    ),
    (
        r"the top of your discard pile (?P<n>\d+) is (?P<top>\S+), not (?P<card>\S+)",
        "the top of your discard pile {n} is {top}, not {card}",
    ),
    (
        r"the top of your partner's discard pile (?P<n>\d+) is (?P<top>\S+), not (?P<card>\S+)",
        "the top of your partner's discard pile {n} is {top}, not {card}",
    ),
    (
        r"(?P<card>\S+) cannot start building pile (?P<n>\d+): a new pile needs a 1 or a wild",
        "{card} cannot start building pile {n}: a new pile needs a 1 or a wild",
    ),
    (
        r"(?P<card>\S+) does not fit on building pile (?P<n>\d+): it stands at (?P<k>\d+)",
        "{card} does not fit on building pile {n}: it stands at {k}",
    ),
    _literal("the table-talk penalty applies to team play only"),
    _literal("the draw pile is empty: there are no cards to take as a penalty"),
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
    rf"play (?P<card>\S+) from (?:(?P<owner>{_SEAT})'s )?"
    r"(?:the (?P<hand>hand)|(?:the )?(?P<stock>stock)|discard pile (?P<pile>\d+))"
    r" onto building pile (?P<to>\d+):"
    r" (?:the first of (?P<n>\d+) plays(?:, (?P<stocks>\d+) of them from the stock)?"
    r"|(?P<one>the one play this turn))"
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
    "the first of {n} plays",
)


def _skipbo_source(g: dict[str, str | None], t: Translator, hint: bool) -> str:
    """Return where a Skip-Bo play (or a hint's, ``hint``: "from the hand") takes its card
    from, said with ``t``: the hand, a stock or a discard pile, a partner's as theirs."""
    if g["hand"]:
        return t("from the hand") if hint else t("from hand")
    if g["owner"]:
        if g["stock"]:
            return t("from {who}'s stock", who=g["owner"])
        return t("from {who}'s discard pile {n}", who=g["owner"], n=g["pile"])
    if g["stock"]:
        return t("from the stock") if hint else t("from stock")
    return t("from discard pile {n}", n=g["pile"])


def skipbo_sentence(text: str, t: Translator) -> str:
    """Return a Skip-Bo referee sentence (a move, a hint, a refused move's reason) said with
    ``t``; one of another shape looked up whole (a page's own words), else unchanged."""
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
        out = t(
            "{who} plays {card} {source} onto building pile {n}",
            who=g["who"],
            card=g["card"],
            source=_skipbo_source(g, t, hint=False),
            n=g["to"],
        )
        out += t(", which reaches 12 and is set aside") if g["full"] else f" ({g['height']})"
        if g["won"]:
            out += t("; {names} won", names=g["won"].replace(" and ", t(" and ")))
        return out
    m = _SKIPBO_HINT.fullmatch(text)
    if m is None:
        return t(text)  # a page's own words (a refusal), else unchanged
    g = m.groupdict()
    source = _skipbo_source(g, t, hint=True)
    if g["one"]:
        plays = t("the one play this turn")
    else:
        plays = t("the first of {n} plays", n=g["n"])
        if g["stocks"]:
            plays += t(", {n} of them from the stock", n=g["stocks"])
    return t(
        "play {card} {source} onto building pile {n}: {plays}",
        card=g["card"],
        source=source,
        n=g["to"],
        plays=plays,
    )


# The camera's guard (vision/pipeline.py: Guard._report) asks to confirm, saying why: one of
# its fixed reasons, or the referee's reason for refusing what the camera read.
_OUT_OF_SYNC_KEY = "out of sync — please confirm: {why}"
OUT_OF_SYNC = re.compile(r"out of sync — please confirm: (?P<why>.+)")

# What the road photo's reader asks the user to check (vision/layouts/road.py)
_ROAD_CHECKS = [
    (
        r"(?P<card>\S+) read by elimination: that card looks most like (?P<other>\S+)",
        "{card} read by elimination: that card looks most like {other}",
    ),
    (
        r"(?P<card>\S+) read by elimination: that card could not be read",
        "{card} read by elimination: that card could not be read",
    ),
]


# every sentence of the camera said here through a variable
CAMERA_KEYS = (_OUT_OF_SYNC_KEY, *(key for _, key in _ROAD_CHECKS))


def say_checks(text: str, t: Translator) -> str:
    """Return the road photo's notes ("…; …") said with ``t``."""
    return "; ".join(say_known(_ROAD_CHECKS, part, t) or t(part) for part in text.split("; "))


# A new game's set-up problems (webui/games.py: parse_setup, the rules' set-up checks, a typed
# road's and a road photo's problems), read back the same way: the form says them.
_QUOTED = r"'[^']*'|\"[^\"]*\""
_SETUP_SENTENCES = [
    (r"(?P<n>\d+) names for (?P<count>\d+) players", "{n} names for {count} players"),
    # the camera asked for (webui.home: _source)
    (
        rf"unknown camera source (?P<kind>{_QUOTED}); expected one of (?P<list>.+)",
        "unknown camera source {kind}; expected one of {list}",
    ),
    (rf"webcam index must be 0–16, not (?P<v>{_QUOTED})", "webcam index must be 0–16, not {v}"),
    (
        rf"a network stream needs an rtsp:// or http\(s\):// address, not (?P<url>{_QUOTED})",
        "a network stream needs an rtsp:// or http(s):// address, not {url}",
    ),
    _literal("every player needs a different name"),
    (
        rf"the name (?P<name>{_QUOTED})… is longer than (?P<n>\d+) characters",
        "the name {name}… is longer than {n} characters",
    ),
    (
        rf"unknown colour (?P<word>{_QUOTED}); use #rrggbb or one of (?P<colours>.+)",
        "unknown colour {word}; use #rrggbb or one of {colours}",
    ),
    (r"(?P<n>\d+) colours for (?P<count>\d+) tokens", "{n} colours for {count} tokens"),
    _literal("every token needs a different colour"),
    *(
        (
            rf"{field} must be between (?P<lo>-?\d+) and (?P<hi>-?\d+), not (?P<value>-?\d+)",
            f"{field} must be between {{lo}} and {{hi}}, not {{value}}",
        )
        for field in ("players", "tokens", "stock", "match_target", "dealer")
    ),
    *(
        (
            rf"{field} must be a whole number, not (?P<v>.+)",
            f"{field} must be a whole number, not {{v}}",
        )
        for field in ("players", "tokens", "stock", "match_target", "dealer")
    ),
    (
        r"(?P<n>\d+) stocks of (?P<size>\d+) plus hands need (?P<need>\d+) cards; the deck has"
        r" (?P<have>\d+): agree on a smaller stock",
        "{n} stocks of {size} plus hands need {need} cards; the deck has {have}: agree on a"
        " smaller stock",
    ),
    (
        r"Skip-Bo is for 2–6 players \(4, 6 or 8 as teams of two\), not (?P<n>\d+)",
        "Skip-Bo is for 2–6 players (4, 6 or 8 as teams of two), not {n}",
    ),
    (
        r"team Skip-Bo needs 4, 6 or 8 players \(teams of two\), not (?P<n>\d+)",
        "team Skip-Bo needs 4, 6 or 8 players (teams of two), not {n}",
    ),
    (
        r"Sten is played by (?P<lo>\d+) to (?P<hi>\d+) players, not (?P<n>\d+)",
        "Sten is played by {lo} to {hi} players, not {n}",
    ),
    (
        r"the strategy variant deals (?P<k>\d+) die cards to each of (?P<seats>\d+) seats, but the"
        r" die pile has only (?P<pile>\d+) cards besides the joker: at most (?P<most>\d+) seats",
        "the strategy variant deals {k} die cards to each of {seats} seats, but the die pile has"
        " only {pile} cards besides the joker: at most {most} seats",
    ),
    # a form no page sends (a request's own, an address typed by hand)
    (r"(?P<n>\d+) names for (?P<count>\d+) seats", "{n} names for {count} seats"),
    (
        r"unknown game (?P<game>.+); expected one of (?P<games>.+)",
        "unknown game {game}; expected one of {games}",
    ),
    (r"deal must be 'app' or 'table', not (?P<v>.+)", "deal must be 'app' or 'table', not {v}"),
    (
        rf"unknown road shape (?P<shape>{_QUOTED}); expected auto or rows",
        "unknown road shape {shape}; expected auto or rows",
    ),
    *(
        (
            rf"{field} must be true or false, not (?P<v>.+)",
            f"{field} must be true or false, not {{v}}",
        )
        for field in ("open", "teams")
    ),
    _literal("names must be text, one name per player"),
    _literal("colours must be text: colour names separated by commas"),
    _literal("road must be card codes: text like '7S 8S 9S' or a list of codes"),
    (
        r"unknown Stigespill variant (?P<v>.+); expected one of (?P<list>.+)",
        "unknown Stigespill variant {v}; expected one of {list}",
    ),
    (
        r"unknown deck (?P<v>.+); expected one of (?P<list>.+)",
        "unknown deck {v}; expected one of {list}",
    ),
    (
        r"unknown empty_draw rule (?P<v>.+); expected one of (?P<list>.+)",
        "unknown empty_draw rule {v}; expected one of {list}",
    ),
    (r"bad set-up for (?P<game>\w+): (?P<problem>.+)", "bad set-up for {game}: {problem}"),
]
# a typed road's problems (referee.stigespill.check_road) and an unknown card code's
_CARD_CODE_PROBLEMS = [
    (
        rf"unknown card code (?P<code>{_QUOTED}): expected e\.g\. AS, 10H, QD, KC, JK, SB7 or SBW",
        "unknown card code {code}: expected e.g. AS, 10H, QD, KC, JK, SB7 or SBW",
    ),
    (
        rf"unknown card code (?P<code>{_QUOTED}): Skip-Bo cards are SB1–SB12 and SBW",
        "unknown card code {code}: Skip-Bo cards are SB1–SB12 and SBW",
    ),
    (
        rf"unknown card code (?P<code>{_QUOTED}): a road card is 7–K of a suit, e\.g\. 7S, 10H,"
        r" QD, KC",
        "unknown card code {code}: a road card is 7–K of a suit, e.g. 7S, 10H, QD, KC",
    ),
]
_ROAD_PROBLEMS = [
    *_CARD_CODE_PROBLEMS,
    (
        rf"unknown card codes (?P<codes>(?:{_QUOTED})(?:, (?:{_QUOTED}))+) \(road cards"
        r" (?P<at>[\d, ]+)\): a road card is 7–K of a suit, e\.g\. 7S, 10H, QD, KC",
        "unknown card codes {codes} (road cards {at}): a road card is 7–K of a suit, e.g. 7S,"
        " 10H, QD, KC",
    ),
    (
        r"the cards are about (?P<px>\d+) px wide in the picture: a camera closer to the table"
        r" reads them better",
        "the cards are about {px} px wide in the picture: a camera closer to the table reads"
        " them better",
    ),
    (
        r"road card (?P<i>\d+) is a joker: the joker is the goal, not a road card",
        "road card {i} is a joker: the joker is the goal, not a road card",
    ),
    (
        r"road card (?P<i>\d+) is (?P<card>.+?): only 7–K belong on the road",  # "Skip-Bo 7"
        "road card {i} is {card}: only 7–K belong on the road",
    ),
    (
        r"(?P<card>\S+) appears (?P<n>\d+) times \(road cards (?P<at>[\d, ]+)\)",
        "{card} appears {n} times (road cards {at})",
    ),
    (r"missing: (?P<codes>.+)", "missing: {codes}"),
    (r"doubled: (?P<codes>.+)", "doubled: {codes}"),
    (r"the road has (?P<n>\d+) cards, not (?P<k>\d+)", "the road has {n} cards, not {k}"),
    (r"the road has 1 card, not (?P<k>\d+)", "the road has 1 card, not {k}"),
    # a road photo's (vision/layouts/road.py: RoadReader.read)
    (
        r"no road found: (?P<n>\d+) of the 28 road cards \(7–K\) seen",
        "no road found: {n} of the 28 road cards (7–K) seen",
    ),
    _literal("no goal joker found: cannot tell which end of the road is the goal"),
    _literal("the joker lies away from the road: put the goal joker after the last card"),
    _literal("two jokers lie at the road: only the goal joker belongs there"),
    _literal("reading rows needs the goal joker to know the direction"),
    _literal("the goal joker is not in the first or last row"),
    _literal("the goal joker is not at the end of its row"),
    # the shape a photo's rows run in, asked by a request of its own (webui.home)
    (rf"unknown road shape (?P<shape>{_QUOTED})", "unknown road shape {shape}"),
]
# two problems naming two cards of the road, or the goal joker
_ROAD_PAIRS = [
    (
        r"gap in the road between (?P<a>.+) and (?P<b>.+): a card may be missing or the road may"
        r" be broken",
        "gap in the road between {a} and {b}: a card may be missing or the road may be broken",
    ),
    (
        r"ambiguous order: two readings fit almost equally well and differ first at road card"
        r" (?P<n>\d+) \((?P<a>.+) or (?P<b>.+)\)",
        "ambiguous order: two readings fit almost equally well and differ first at road card"
        " {n} ({a} or {b})",
    ),
]
_ROAD_PROBLEM = re.compile(r"road card (?P<i>\d+): (?P<why>.+)")
_MISSING = re.compile(r"(?P<what>missing|doubled): (?P<codes>.+)")


def pretty(code: str) -> str:
    """Return a card code as players write it: ``Q♥``, ``10♠``, ``Joker``, ``7`` (Skip-Bo),
    ``Skip-Bo`` (the wild, as the referee's sentences and the card itself name it); anything
    else unchanged."""
    try:
        c = parse_card(code)
    except (CardError, TypeError):
        return str(code)
    if c.kind == "skipbo":
        return "Skip-Bo" if c.value == 0 else str(c.value)
    return c.pretty


_ROAD_LISTS = [
    ("bad road: ", "bad road: {problems}"),
    ("road photo: ", "road photo: {problems}"),
    ("the road cannot be read yet: ", "the road cannot be read yet: {problems}"),  # the camera
]
# every sentence say_setup says through a variable (the literal ones are found)
SETUP_KEYS = (
    *(key for _, key in _SETUP_SENTENCES + _ROAD_PROBLEMS + _ROAD_PAIRS),
    *(key for _, key in _ROAD_LISTS),
    "road card {i}: {why}",
    "the goal joker",
)


def say_setup(text: str, t: Translator) -> str:
    """Return a new game's set-up problem said with ``t``; one of another shape looked up
    whole, else unchanged."""
    said = say_known(_SETUP_SENTENCES, text, t) or say_road_problems(text, t)
    return t(text) if said is None else said


def say_road_problems(text: str, t: Translator) -> str | None:
    """Return a road's problems ("bad road: …; …", a road photo's, the camera's) said with
    ``t``, or ``None`` for a text of another shape."""
    for head, key in _ROAD_LISTS:
        if text.startswith(head):
            problems = text[len(head) :].split("; ")
            return t(key, problems="; ".join(_say_road_problem(p, t) for p in problems))
    return None


def _say_road_problem(text: str, t: Translator) -> str:
    m = _MISSING.fullmatch(text)
    if m is not None:  # the cards as the board shows them: 7♠, not 7S
        key = "missing: {codes}" if m["what"] == "missing" else "doubled: {codes}"
        return t(key, codes=" ".join(map(pretty, m["codes"].split())))
    m = _ROAD_PROBLEM.fullmatch(text)
    if m is not None:
        return t("road card {i}: {why}", i=m["i"], why=_say_road_problem(m["why"], t))
    for pattern, key in _ROAD_PAIRS:
        m = re.fullmatch(pattern, text)
        if m is not None:
            named = {k: t(v) if v == "the goal joker" else v for k, v in m.groupdict().items()}
            return t(key, **named)
    said = say_known(_ROAD_PROBLEMS, text, t)
    return t(text) if said is None else said
