"""Skip-Bo matches: points per game, running totals, the race to the target as an SVG chart."""

from __future__ import annotations

from html import escape
from typing import Any

from flask import Blueprint, Response, abort, jsonify, render_template

from webui import access, i18n
from webui.games import given_name, shown_names, table_name
from webui.home import when
from webui.tables import Runtime, TableNotFound, hub

bp = Blueprint("matches", __name__, template_folder="templates")

LABEL_GAP = 22  # px from one label to the next at the chart's right: 16 px text, Å's ring above it
LABEL_SIZE = 16  # px: app.css, .race .who
LABEL_LINE = 19  # px from a label's line to its next (a team's partners): the text's own height
LABEL_ROOM = 6  # px more around a label of two lines, that its lines read as one label
# What a character of a label takes in its font's size, at most, in the widest of the page's
# fonts (DejaVu Sans Bold); others take less, so a label never runs past the chart's edge
NARROW, SLIM, WIDE = set("iljIJ.,:;'!|()"), set("ftr "), set("mwMWæÆœŒ&")


# Words a family writes before a player's name ("Bestefar Ole", "Tante Åse", "Mormor Kari"),
# by language: a name shortened to one word keeps the word after them, the one that tells two
# grandfathers apart. Not "Bror" (a Swedish given name too), nor "Gran" (a Norwegian surname).
FAMILY_TITLES_SAID = {
    "nb": "bestefar bestemor besta beste bestemamma bestepappa oldefar oldemor tippoldefar "
    "tippoldemor morfar mormor farfar farmor tante onkel grandtante grandonkel moster faster "
    "morbror farbror mamma pappa mor far stemor stefar bonusmamma bonuspappa kusine fetter "
    "søskenbarn søster storebror lillebror storesøster lillesøster svoger svigerinne "
    "svigerfar svigermor svigersønn svigerdatter nevø niese gudfar gudmor",
    "da": "bedstefar bedstemor bedste oldefar oldemor tipoldefar tipoldemor morfar mormor "
    "farfar farmor tante onkel grandtante grandonkel moster faster morbror farbror mor far "
    "stedmor stedfar bonusmor bonusfar kusine fætter søster storebror lillebror "
    "storesøster lillesøster svoger svigerinde svigerfar svigermor svigersøn svigerdatter "
    "nevø niece gudfar gudmor oma opa",
    "sv": "morfar mormor farfar farmor moffa mommo faffa fammo gammelmorfar gammelmormor "
    "gammelfarfar gammelfarmor tant moster faster morbror farbror mamma pappa mor far "
    "styvmor styvfar bonusmamma bonuspappa kusin syster storebror lillebror storasyster "
    "lillasyster svåger svägerska svärfar svärmor svärson svärdotter gudfar gudmor",
    "en": "grandma grandpa granny grandad granddad grandmother grandfather grandmama "
    "grandpapa gramps nana great great-grandma great-grandpa uncle aunt auntie aunty mum "
    "mom mummy mommy mama dad daddy papa mother father stepmum stepmom stepdad cousin "
    "brother sister nephew niece godmother godfather",
}
FAMILY_TITLES = frozenset(w for words in FAMILY_TITLES_SAID.values() for w in words.split())

PLOT = (251, 252, 251)  # app.css: .race .plot, under the players' names


def _luminance(rgb: tuple[float, ...]) -> float:
    def channel(v: float) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def readable(colour: str, on: tuple[int, int, int] = PLOT) -> str:
    """A player's colour (#rrggbb) for text on the chart: as it is where it reads (WCAG's
    4.5:1), else darkened until it does (white, pink, teal and orange were too light)."""
    try:
        rgb = tuple(float(int(colour[i : i + 2], 16)) for i in (1, 3, 5))
    except ValueError:
        return colour
    bg = _luminance(on) + 0.05
    while bg / (_luminance(rgb) + 0.05) < 4.5:
        rgb = tuple(v * 0.9 for v in rgb)
    return "#" + "".join(f"{round(v):02x}" for v in rgb)


def text_width(text: str, size: float = LABEL_SIZE) -> float:
    """Return how wide ``text`` is drawn in bold at ``size`` px, at most (see NARROW)."""
    em = 0.0
    for c in text:
        if c in NARROW:
            em += 0.38
        elif c in SLIM:
            em += 0.5
        elif c in WIDE:
            em += 1.1
        elif c == "-":
            em += 0.43
        elif c.isdigit() and c.isascii():
            em += 0.7
        elif c.isascii() or c in "ÅÄÖØÉÜåäöøéü":
            em += 0.86 if c.isupper() else 0.72
        else:
            em += 1.0  # a letter of another script: as wide as its size
    return em * size


def spread(
    wanted: list[float],
    gap: float,
    low: float,
    high: float,
    taller: list[float] | None = None,
) -> list[float]:
    """Place labels wanted at the heights ``wanted`` (their middles, in order, top first) at
    least ``gap`` apart, each as near its own as may be, all within ``low``..``high`` where
    there is room: labels that would overlap are set one under the other around their
    heights' mean. ``taller`` is how much taller than one line each label is (a label of two
    lines: the step between them); ``gap``, ``low`` and ``high`` are a one-line label's."""
    more = taller or [0.0] * len(wanted)

    def below(first: int, k: int) -> float:  # label first + k's middle under label first's
        return sum(gap + (more[first + j] + more[first + j + 1]) / 2 for j in range(k))

    runs: list[list[Any]] = []  # labels set one under the other: [first, count, top]
    for i in range(len(wanted)):
        runs.append([i, 1, 0.0])
        while True:
            first, count, _ = runs[-1]
            steps = [below(first, k) for k in range(count)]
            top = sum(wanted[first + k] - steps[k] for k in range(count)) / count
            lowest = high - more[first + count - 1] / 2 - steps[-1]
            runs[-1][2] = max(min(top, lowest), low + more[first] / 2)
            if len(runs) < 2:
                break
            above, n, at = runs[-2]
            last = above + n - 1  # the run above's last label, and the room it needs under it
            if at + below(above, n - 1) + gap + (more[last] + more[first]) / 2 <= runs[-1][2]:
                break
            runs[-2][1] += count  # the run above reaches into this one: one run
            runs.pop()
    return [top + below(first, k) for first, count, top in runs for k in range(count)]


def short_name(name: str) -> str:
    """Return the one word of ``name`` that names its player most briefly: the first that is
    no family title ("Bestefar Ole" → "Ole", "Kari Nordmann" → "Kari"); a name of one word, or
    of titles alone ("Mormor"), as it is."""
    words = name.split()
    given = [w for w in words if w.casefold().rstrip(".") not in FAMILY_TITLES]
    return given[0] if len(words) > 1 and given else name


def cut(text: str, end: str, most: float) -> str:
    """Return ``text + end`` at most ``most`` px wide: ``text`` cut short with … if need be."""
    while len(text) > 1 and text_width(text + end) > most:
        text = text[:-2].rstrip(" &-") + "…"
    return text + end


def label_lines(partners: list[str], points: int, most: float, everyone: list[str]) -> list[str]:
    """Return the lines of a side's label at its line's end, each at most ``most`` px wide:
    one line of its name and points where it fits ("Anna & Bo 240"); else a team's partners
    one a line ("Bestefar Ole &", "Mormor Kari 240"). A name too long for its line is told by
    its short name ("Oddbjørn 95" for Bestefar Oddbjørn Hansen) unless another of
    ``everyone`` (the chart's players) has that one too, and cut short with … if even that
    is too long ("Margrethe-Kri… &"): every partner keeps a line of their own."""
    score = f" {points}"
    if text_width(" & ".join(partners) + score) <= most:
        return [" & ".join(partners) + score]
    lines = []
    for i, name in enumerate(partners):
        end = score if i == len(partners) - 1 else " &"
        short = short_name(name)
        shared = any(short_name(o).casefold() == short.casefold() for o in everyone if o != name)
        if text_width(name + end) > most and not shared:
            name = short
        lines.append(cut(name, end, most))
    return lines


def side_names(names: list[str], match: dict[str, Any]) -> list[str]:
    """Return the name of each side of a match: a player, or a team ("Anna & Cy")."""
    return [" & ".join(names[s] for s in side) for side in match["sides"]]


def race_svg(
    names: list[str],
    colours: list[str],
    match: dict[str, Any],
    width: int = 420,
    height: int = 260,
    label: str | None = None,
) -> str:
    """Draw the race to the target: one line of running totals per side (a player, or a
    team in team play: partners score alike), the target dashed."""
    sides = [side[0] for side in match["sides"]]  # a side's totals are its first seat's
    wholes, target = side_names(names, match), match["target"]
    games = match["games"]
    totals = games[-1]["totals"] if games else [0] * (max(sides) + 1)
    top = max([target, *(t for g in games for t in g["totals"])]) * 1.08
    # The players' names stand right of their lines' ends, in a margin as wide as the longest
    # (at most 45% of the chart: a team's partners one a line, a longer name told by its short
    # name or cut short), where no line runs.
    most = width * 0.45 - 22
    labels = [
        label_lines([names[s] for s in side], totals[side[0]], most, names)
        for side in match["sides"]
    ]
    left, bottom, up = 44, 34, 14
    right = max(16, 22 + max(text_width(line) for label in labels for line in label))
    w, h = width - left - right, height - bottom - up
    n = max(len(games), 1)

    def x(i: int) -> float:
        return left + w * i / n

    def y(v: float) -> float:
        return up + h * (1 - v / top)

    parts = [
        f'<svg class="race" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label or f"Race to {target}")}" xmlns="http://www.w3.org/2000/svg">',
        f'<rect x="{left}" y="{up}" width="{w}" height="{h}" class="plot"/>',
    ]
    step = 100 if target >= 300 else 50 if target >= 100 else 10
    for v in range(0, int(top) + 1, step):
        parts.append(
            f'<line x1="{left}" x2="{left + w}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
            f'class="grid"/><text x="{left - 6}" y="{y(v) + 4:.1f}" '
            f'class="tick" text-anchor="end">{v}</text>'
        )
    parts.append(
        f'<line x1="{left}" x2="{left + w}" y1="{y(target):.1f}" y2="{y(target):.1f}" '
        f'class="target"/><text x="{left + 6}" y="{y(target) - 6:.1f}" '
        f'class="tick target-label">{target}</text>'  # the leaders' labels are at the right
    )
    for i in range(n + 1):
        parts.append(
            f'<text x="{x(i):.1f}" y="{up + h + 20}" class="tick" text-anchor="middle">{i}</text>'
        )
    ends = []
    for k, s in enumerate(sides):
        pts = [(x(0), y(0))] + [(x(i + 1), y(g["totals"][s])) for i, g in enumerate(games)]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
        colour = escape(colours[s % len(colours)])
        parts.append(
            f'<polyline points="{path}" fill="none" stroke="{colour}" '
            f'stroke-width="3" class="line" data-seat="{s}"/>'
        )
        for px, py in pts[1:]:
            parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="4" fill="{colour}"/>')
        ends.append((pts[-1][1], -totals[s], k, colour))
    # Every line ends at the same game: each player's label stands at the height of their
    # line's end, those of close totals nudged apart (a short stroke leads from the end to a
    # label nudged away), the highest total's on top, all inside the chart.
    ends.sort()
    lx = x(len(games))
    wanted = [end for end, *_ in ends]
    # a team's label, a line a partner, is taller by its lines after the first and some room
    lines_of = [len(labels[k]) for *_, k, _ in ends]
    taller = [(n - 1) * LABEL_LINE + LABEL_ROOM if n > 1 else 0.0 for n in lines_of]
    middles = spread(wanted, LABEL_GAP, LABEL_GAP / 2, height - LABEL_GAP / 2, taller)
    for (end, _, k, colour), middle in zip(ends, middles, strict=True):
        s, lines = sides[k], labels[k]
        if abs(middle - end) > 3:
            parts.append(
                f'<line x1="{lx + 6:.1f}" y1="{end:.1f}" x2="{lx + 15:.1f}" y2="{middle:.1f}" '
                f'stroke="{colour}" stroke-width="1.5" class="leader"/>'
            )
        # each line's baseline a third of its size under its middle
        first = middle - (len(lines) - 1) * LABEL_LINE / 2 + 0.35 * LABEL_SIZE
        text = escape(lines[0])
        if len(lines) > 1:  # a team's partners, one a line
            text = "".join(
                f'<tspan x="{lx + 18:.1f}" y="{first + i * LABEL_LINE:.1f}">{escape(line)}</tspan>'
                for i, line in enumerate(lines)
            )
        label = (
            f'<text x="{lx + 18:.1f}" y="{first:.1f}" class="who" '
            f'fill="{readable(colour)}" data-seat="{s}">{text}</text>'
        )
        whole = f"{wholes[k]} {totals[s]}"
        if lines != [whole]:  # shortened or on two lines: the whole name as its tooltip
            label = f"<g><title>{escape(whole)}</title>{label}</g>"
        parts.append(label)
    parts.append("</svg>")
    return "".join(parts)


def _race_label(match: dict[str, Any]) -> str:
    """The chart's name for a screen reader, in the page's language ("Først til 500")."""
    from webui import i18n

    return i18n.current_translator()("Race to {n}", n=match["target"])


def _match(table_id: str) -> tuple[Runtime, dict[str, Any]]:
    try:
        rt = hub().get(table_id)
    except TableNotFound:
        abort(404, "no such match")  # a match is a table's, but the user asked for a match
    access.require_view(rt.table)
    match = hub().match(table_id)
    if match is None:
        abort(404, "this table plays no match")
    return rt, match


@bp.get("/matches")
def index() -> str:
    """List every Skip-Bo match with its leader."""
    rows = []
    for row in hub().store.list_tables():
        if row["game"] != "skipbo" or not row["match_target"]:
            continue
        if not access.may_list(row):
            continue
        rt = hub().get(row["id"])
        match = hub().match(row["id"])
        if match is None:  # no match after all: not listed (as its page says 404)
            continue
        # unnamed, a match is told from the others by when it began (its badge says Skip-Bo)
        heading = given_name(row, i18n.t) or when(row["created"])
        names = shown_names(rt.names, i18n.t)
        rows.append(
            {
                "rt": rt,
                "names": names,
                "match": match,
                "sides": side_names(names, match),
                "heading": heading,
            }
        )
    return render_template("matches/index.html", rows=rows)


@bp.get("/matches/<table_id>")
def page(table_id: str) -> str:
    """Show a match: the race chart, points per game, totals, the winner."""
    rt, match = _match(table_id)
    names = shown_names(rt.names, i18n.t)
    colours = [p["colour"] for p in rt.table["players"]]
    return render_template(
        "matches/match.html",
        rt=rt,
        table_name=table_name(rt.table, i18n.t),
        match=match,
        sides=side_names(names, match),
        winner_names=[names[s] for s in match["winners"]],
        chart=race_svg(names, colours, match, label=_race_label(match)),
    )


@bp.get("/api/matches/<table_id>")
def api(table_id: str) -> Response:
    """Return a match as JSON (points per game, totals, winners, names)."""
    rt, match = _match(table_id)
    return jsonify({**match, "names": shown_names(rt.names, i18n.t)})


@bp.get("/matches/<table_id>/chart.svg")
def chart(table_id: str) -> Response:
    """Return the race chart alone (the live pages swap it in when a game ends)."""
    return chart_response(*_match(table_id))


def chart_response(rt: Runtime, match: dict[str, Any]) -> Response:
    """Return the race chart of ``rt``'s match as an SVG response."""
    colours = [p["colour"] for p in rt.table["players"]]
    return Response(
        race_svg(shown_names(rt.names, i18n.t), colours, match, label=_race_label(match)),
        mimetype="image/svg+xml",
        headers={"Cache-Control": "no-store"},
    )
