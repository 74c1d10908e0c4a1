"""The referee's English sentences (and the camera's questions, a set-up's problems) said in
the page's language.

The referee speaks English only (it knows no pages), and its sentence shapes are fixed: each
sentence is read back into its parts (a card, a seat, a number) and said again through the
page's translator ``t``. A sentence of a shape not known here is looked up whole (a page's
own words, such as its refusals), else left as it is.
"""

from __future__ import annotations

import ast
import re
import string
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


# A text as Python quotes it (``repr``): in single or double quotes, with its escapes ('2\n',
# "it's", 'it\'s "x"')
_QUOTED = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""
_QUOTES_LIST = re.compile(rf"(?:{_QUOTED})(?:, (?:{_QUOTED}))*")


def _requoted(part: str | None) -> Any:
    """Return a sentence's part that is one or more Python-quoted texts as :class:`Quoted`
    (said in the page's quotation marks, what Python escaped read back: '2\\n' is the text
    typed, a 2 and a line break); any other part as it is."""
    if part is None or not _QUOTES_LIST.fullmatch(part):
        return part
    try:
        return Quoted(*(ast.literal_eval(q) for q in re.findall(_QUOTED, part)))
    except (ValueError, SyntaxError):  # quoted, but not as Python quotes ('\d'): as it is
        return part


def _listing(cards: str, t: Translator) -> str:
    """Return "6♥, 5♥ and 4♥" with the page's "and" (cards apart by spaces stay as they are)."""
    *rest, last = re.split(r", | and ", cards)
    return f"{', '.join(rest)}{t(' and ')}{last}" if rest else last


def sentence(key: str, **parts: str) -> tuple[str, str]:
    """Return a known sentence as :func:`say_known` reads it, ``(pattern, key)``, made from
    its key alone so that the two cannot disagree: the key's words stand as they are, each
    ``{part}`` matches the regular expression ``parts[part]`` (any text where not given), and
    a part the key names again is the same text again."""
    pattern, seen = "", set()
    for words, part, _, _ in string.Formatter().parse(key):
        pattern += re.escape(words)
        if part is not None:
            pattern += f"(?P={part})" if part in seen else f"(?P<{part}>{parts.get(part, '.+')})"
            seen.add(part)
    return pattern, key


# A refused move's reason is read back the same way. Only the reasons a page can meet are
# known (a well-formed move at the wrong time); a malformed move's (a seat that is no number)
# stays English: no page sends one.
_NOT_YOUR_TURN = sentence("it is {who}'s turn, not {other}'s")


# Stigespill's referee sentences (its moves, hints and refusals).
_WHO = r"(?:Player|Token) \d+"
_PLACE = r"the start|the goal|\S+ \(card \d+\)"
_STIGESPILL_SENTENCES = [
    sentence("{who} begins", who=_WHO),
    sentence("Deal {n} die cards to each seat (never the joker)", n=r"\d+"),
    sentence("{who} draws from the die pile", who=_WHO),
    sentence("A card is dealt to {who}", who=_WHO),
    sentence("A card is dealt to {who}; the deal is done and {first} begins", who=_WHO, first=_WHO),
    sentence(
        "{who} drew the joker: the die and discard piles are shuffled together into a new die "
        "pile ({n} cards), and {who} draws again",
        who=_WHO,
        n=r"\d+",
    ),
    sentence("Draw (the classic game has only draws): about {n} turns to finish", n=r"[\d.]+"),
    sentence("Draw (no hand cards left): about {n} turns to finish", n=r"[\d.]+"),
    sentence("Draw: about {n} turns to finish; keep your cards for later", n=r"[\d.]+"),
]
_STIGESPILL_SENTENCES += [
    _NOT_YOUR_TURN,
    sentence("the game is over: {who} reached the goal", who=_WHO),
    sentence("the cards are being dealt: reveal the next dealt card first"),
    sentence("{who} has drawn: reveal the drawn card first", who=_WHO),
    sentence("every die card but the joker is in a hand: play a hand card instead"),
    sentence("the classic game has no hands: draw from the die pile"),
    sentence("{card} is not in {who}'s hand (hand: empty)", who=_WHO),
    sentence("{card} is not in {who}'s hand (hand: {held})", who=_WHO),
    sentence("no card is being drawn: it is {who}'s turn to draw", who=_WHO),
    sentence("no card is being drawn: it is {who}'s turn to draw or play a hand card", who=_WHO),
    sentence("{card} is not in the die pile"),
    sentence("the joker is never dealt: swap it for the next card and shuffle it back"),
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
    sentence("Waiting for {card}", card=_CARD),
    sentence("{who} holds {card} and lays it first", card=_CARD),
    sentence("{who} said Sten and keeps the stone"),
    sentence("{who} said Sten and takes the stone"),
    sentence("{who} said Sten and takes the stone from {other}"),
    sentence(
        "{who} tried to go out with {cards}, but {card} did not fit; the cards go back and "
        "{who} takes the stone",
        cards=_CARDS,
        card=_CARD,
    ),
    sentence("nothing fits: say Sten and take the stone"),
    sentence("you can go out now: {cards}", cards=_CARDS),
    sentence("the referee does not know your hand; these cards fit: {cards}", cards=_CARDS),
    sentence("Lay {card}: it is the only card that fits", card=_CARD),
    sentence("Lay {card}: it opens nothing for the others", card=_CARD),
    sentence(
        "Lay {card}: none of your cards that fit frees another of yours; this one opens least",
        card=_CARD,
    ),
    sentence("it is {who}'s turn"),
    sentence("the game is over: {who} went out"),
]
_STEN_SENTENCES += [
    _NOT_YOUR_TURN,
    sentence("say who laid 7♥: with unknown hands the referee does not know who holds it"),
    sentence("7♥ must be laid first"),
    sentence("you cannot say Sten: {card} fits", card=_CARD),
    sentence("you cannot say Sten: {cards} fit", cards=_LIST),
    sentence("to go out, name your cards in the order you lay them"),
    sentence("{card} is named twice", card=_CARD),
    sentence(
        "to go out you must lay all {n} of your cards; {card} is missing",
        n=r"\d+",
        card=_CARD,
    ),
    sentence(
        "to go out you must lay all {n} of your cards; {cards} are missing",
        n=r"\d+",
        cards=_LIST,
    ),
    sentence("to go out {who} must lay all {n} cards in the hand, not {k}", n=r"\d+", k=r"\d+"),
    sentence("Sten is played without {card}"),
    sentence("you do not hold {card}", card=_CARD),
    sentence("you do not hold {card} (it is already on the table)", card=_CARD),
    sentence("{card} has already left the table", card=_CARD),
    sentence("{card} has already been laid", card=_CARD),
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
    sentence("the stocks are dealt"),
    sentence("{who} draws a card", who=_SEAT),
    sentence("{who}'s stock turns up {card}", who=_SEAT, card=r"\S+"),
    sentence(
        "table talk: {who} takes {n} cards from the draw pile onto its stock",
        who=_SEAT,
        n=r"\d+",
    ),
    sentence("the game is over"),
    sentence("waiting for the drawn or turned-up card"),
    sentence("it is {who}'s turn", who=_SEAT),
    sentence("no play helps; discard {card} onto discard pile {n}", card=r"\S+", n=r"\d+"),
    sentence("nothing to play and an empty hand: end the turn"),
]
_SKIPBO_SENTENCES += [
    _NOT_YOUR_TURN,
    sentence("no card is being drawn or turned up now"),
    sentence("{card} cannot be drawn: no unseen {card} is left", card=r"\S+"),
    sentence("first say which card was drawn"),
    sentence("first say which card was turned up"),
    sentence(
        "the turn ends with a discard: put one of your {n} hand cards onto a discard pile",
        n=r"\d+",
    ),
    sentence("{card} is not in your hand", card=r"\S+"),
    sentence("{who} may play only from their own stock and discard piles", who=_SEAT),
    sentence(
        "{who} may play only from their own stock and discard piles and their partner's",
        who=_SEAT,
    ),
    sentence("you may play only from your own hand"),
    sentence("your stock is empty"),
    sentence("your partner's stock is empty"),
    sentence("the top of your stock is {top}, not {card}", top=r"\S+", card=r"\S+"),
    sentence("the top of your partner's stock is {top}, not {card}", top=r"\S+", card=r"\S+"),
    sentence("your discard pile {n} is empty", n=r"\d+"),
    sentence("your partner's discard pile {n} is empty", n=r"\d+"),
    sentence(
        "the top of your discard pile {n} is {top}, not {card}",
        n=r"\d+",
        top=r"\S+",
        card=r"\S+",
    ),
    sentence(
        "the top of your partner's discard pile {n} is {top}, not {card}",
        n=r"\d+",
        top=r"\S+",
        card=r"\S+",
    ),
    sentence(
        "{card} cannot start building pile {n}: a new pile needs a 1 or a wild",
        card=r"\S+",
        n=r"\d+",
    ),
    sentence(
        "{card} does not fit on building pile {n}: it stands at {k}",
        card=r"\S+",
        n=r"\d+",
        k=r"\d+",
    ),
    sentence("the table-talk penalty applies to team play only"),
    sentence("the draw pile is empty: there are no cards to take as a penalty"),
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
OUT_OF_SYNC = re.compile(sentence(_OUT_OF_SYNC_KEY)[0])

# What the road photo's reader asks the user to check (vision/layouts/road.py)
_ROAD_CHECKS = [
    sentence(
        "{card} read by elimination: that card looks most like {other}",
        card=r"\S+",
        other=r"\S+",
    ),
    sentence("{card} read by elimination: that card could not be read", card=r"\S+"),
    sentence("{card} read in a gap in the road: check that card", card=r"\S+"),
]


# every sentence of the camera said here through a variable
CAMERA_KEYS = (_OUT_OF_SYNC_KEY, *(key for _, key in _ROAD_CHECKS))


def say_checks(text: str, t: Translator) -> str:
    """Return the road photo's notes ("…; …") said with ``t``, their cards as the board
    shows them (``K♠``, not ``KS``)."""
    return "; ".join(_say_check(part, t) for part in text.split("; "))


def _say_check(text: str, t: Translator) -> str:
    for pattern, key in _ROAD_CHECKS:
        m = re.fullmatch(pattern, text)
        if m:
            return t(key, **{k: pretty(v) for k, v in m.groupdict().items()})
    return t(text)


# A new game's set-up problems (webui/games.py: parse_setup, the rules' set-up checks, a typed
# road's and a road photo's problems), read back the same way: the form says them.
_NUMBER_FIELDS = ("players", "tokens", "stock", "match_target", "dealer")  # games.parse_setup's
_BOUNDS = {"lo": r"-?\d+", "hi": r"-?\d+", "value": r"-?\d+"}
_SETUP_SENTENCES = [
    sentence("{n} names for {count} players", n=r"\d+", count=r"\d+"),
    # the camera asked for (webui.home: _source)
    sentence("unknown camera source {kind}; expected one of {list}", kind=_QUOTED),
    sentence("webcam index must be 0–16, not {v}", v=_QUOTED),
    sentence("a network stream needs an rtsp:// or http(s):// address, not {url}", url=_QUOTED),
    sentence("every player needs a different name"),
    sentence("the name {name}… is longer than {n} characters", name=_QUOTED, n=r"\d+"),
    sentence("unknown colour {word}; use #rrggbb or one of {colours}", word=_QUOTED),
    sentence("{n} colours for {count} tokens", n=r"\d+", count=r"\d+"),
    sentence("every token needs a different colour"),
    *(
        sentence(f"{field} must be between {{lo}} and {{hi}}, not {{value}}", **_BOUNDS)
        for field in _NUMBER_FIELDS
    ),
    *(sentence(f"{field} must be a whole number, not {{v}}") for field in _NUMBER_FIELDS),
    sentence(
        "{n} stocks of {size} plus hands need {need} cards; the deck has {have}: agree on a "
        "smaller stock",
        n=r"\d+",
        size=r"\d+",
        need=r"\d+",
        have=r"\d+",
    ),
    sentence("Skip-Bo is for 2–6 players (4, 6 or 8 as teams of two), not {n}", n=r"\d+"),
    sentence("team Skip-Bo needs 4, 6 or 8 players (teams of two), not {n}", n=r"\d+"),
    sentence("Sten is played by {lo} to {hi} players, not {n}", lo=r"\d+", hi=r"\d+", n=r"\d+"),
    sentence(
        "the strategy variant deals {k} die cards to each of {seats} seats, but the die pile "
        "has only {pile} cards besides the joker: at most {most} seats",
        k=r"\d+",
        seats=r"\d+",
        pile=r"\d+",
        most=r"\d+",
    ),
    # a form no page sends (a request's own, an address typed by hand)
    sentence("{n} names for {count} seats", n=r"\d+", count=r"\d+"),
    sentence("unknown game {game}; expected one of {games}"),
    sentence("deal must be 'app' or 'table', not {v}"),
    sentence("unknown road shape {shape}; expected auto or rows", shape=_QUOTED),
    *(sentence(f"{field} must be true or false, not {{v}}") for field in ("open", "teams")),
    sentence("names must be text, one name per player"),
    sentence("colours must be text: colour names separated by commas"),
    sentence("road must be card codes: text like '7S 8S 9S' or a list of codes"),
    sentence("unknown Stigespill variant {v}; expected one of {list}"),
    sentence("unknown deck {v}; expected one of {list}"),
    sentence("unknown empty_draw rule {v}; expected one of {list}"),
    sentence("bad set-up for {game}: {problem}", game=r"\w+"),
]
# a typed road's problems (referee.stigespill.check_road) and an unknown card code's
_CARD_CODE_PROBLEMS = [
    sentence(
        "unknown card code {code}: expected e.g. AS, 10H, QD, KC, JK, SB7 or SBW",
        code=_QUOTED,
    ),
    sentence("unknown card code {code}: Skip-Bo cards are SB1–SB12 and SBW", code=_QUOTED),
    sentence(
        "unknown card code {code}: a road card is 7–K of a suit, e.g. 7S, 10H, QD, KC",
        code=_QUOTED,
    ),
]
_ROAD_PROBLEMS = [
    *_CARD_CODE_PROBLEMS,
    sentence(
        "unknown card codes {codes} (road cards {at}): a road card is 7–K of a suit, e.g. 7S, "
        "10H, QD, KC",
        codes=rf"(?:{_QUOTED})(?:, (?:{_QUOTED}))+",
        at=r"[\d, ]+",
    ),
    sentence(
        "the cards are about {px} px wide in the picture: a camera closer to the table reads "
        "them better",
        px=r"\d+",
    ),
    sentence("road card {i} is a joker: the joker is the goal, not a road card", i=r"\d+"),
    # the card as the referee names it: "Skip-Bo 7"
    sentence("road card {i} is {card}: only 7–K belong on the road", i=r"\d+", card=".+?"),
    sentence("{card} appears {n} times (road cards {at})", card=r"\S+", n=r"\d+", at=r"[\d, ]+"),
    sentence("missing: {codes}"),
    sentence("doubled: {codes}"),
    sentence("the road has {n} cards, not {k}", n=r"\d+", k=r"\d+"),
    sentence("the road has 1 card, not {k}", k=r"\d+"),
    # a road photo's (vision/layouts/road.py: RoadReader.read)
    sentence("no road found: {n} of the 28 road cards (7–K) seen", n=r"\d+"),
    sentence(
        "take the photo again from straight above, closer and in focus, with the whole road in "
        "the picture"
    ),
    sentence("no goal joker found: cannot tell which end of the road is the goal"),
    sentence("the joker lies away from the road: put the goal joker after the last card"),
    sentence("two jokers lie at the road: only the goal joker belongs there"),
    sentence("reading rows needs the goal joker to know the direction"),
    sentence("the goal joker is not in the first or last row"),
    sentence("the goal joker is not at the end of its row"),
    # the shape a photo's rows run in, asked by a request of its own (webui.home)
    sentence("unknown road shape {shape}", shape=_QUOTED),
]
# two problems naming two cards of the road, or the goal joker
_ROAD_PAIRS = [
    sentence(
        "gap in the road between {a} and {b}: a card may be missing or the road may be broken",
    ),
    sentence(
        "ambiguous order: two readings fit almost equally well and differ first at road card "
        "{n} ({a} or {b})",
        n=r"\d+",
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


# a list of a road's problems: "bad road: {problems}" reads "bad road: " and the problems
_ROAD_LISTS = [
    "bad road: {problems}",
    "road photo: {problems}",
    "the road cannot be read yet: {problems}",  # the camera
]
# every sentence say_setup says through a variable (the literal ones are found)
SETUP_KEYS = (
    *(key for _, key in _SETUP_SENTENCES + _ROAD_PROBLEMS + _ROAD_PAIRS),
    *_ROAD_LISTS,
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
    for key in _ROAD_LISTS:
        head = key.removesuffix("{problems}")
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
