"""Languages: English, Norwegian bokmål, Danish, Swedish — one small JSON dict each.

Keys are the English sentences; a missing translation falls back to English. The language
comes from the ``lang`` cookie (the user's choice) or the browser's Accept-Language.

Cards are shown with the letters of the family's own deck (the ``letters`` cookie): J Q K A,
or the Nordic Kn D K E or B D K E. Only what is shown changes: card codes (``QS``) stay as
they are, and every card a sentence names (``Q♠``) is shown with the chosen letters.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from flask import Flask, g, request

LANGUAGES = {"en": "English", "nb": "Norsk", "da": "Dansk", "sv": "Svenska"}
# A catalog's "{name}s" said of a name ending in s, x or z: Danish "Jens' grundbunke",
# Swedish "Jens grundhög" ("Jenss" reads as a slip); the page's script does the same
POSSESSIVE_AFTER_S = {"da": "'", "sv": ""}
# The quotation marks each language prints around a quoted word: what an error says back of
# what was typed («xx» in Norwegian, »xx« in Danish, ”xx” in Swedish, “xx” in English)
QUOTES = {"en": ("“", "”"), "nb": ("«", "»"), "da": ("»", "«"), "sv": ("”", "”")}
DEFAULT = "en"
# The letters printed on a deck's jacks, queens, kings and aces, as the menu names them.
LETTERS = {"JQKA": "J Q K A", "KnDKE": "Kn D K E", "BDKE": "B D K E"}
DEFAULT_LETTERS = "JQKA"
_NORDIC = {"KnDKE": {"J": "Kn", "Q": "D", "A": "E"}, "BDKE": {"J": "B", "Q": "D", "A": "E"}}
# A card named (Q♠), or a run of ranks (2–J): each letter in it.
_NAMED_RANKS = re.compile(r"(?<!\w)([AJQK])(?=[♠♥♦♣])|(?<!\w)(10|[2-9AJQK])–(10|[2-9AJQK])(?!\w)")
_ALIASES = {"no": "nb", "nn": "nb", "nb": "nb", "da": "da", "sv": "sv", "en": "en"}
_DIR = Path(__file__).parent / "translations"


def readable(text: str) -> str:
    """Return ``text`` with each character that prints nothing (a line break, a tab, a
    zero-width space) written as Python writes it: "2\\n", "a\\tb", "\\u200b"."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class Quoted:
    """What an error quotes back (a typed value, or several): a sentence's field said inside
    the page language's quotation marks (``QUOTES``), several apart by commas, a character
    that prints nothing written out (:func:`readable`)."""

    def __init__(self, *texts: str) -> None:
        self.texts = texts

    def said(self, lang: str) -> str:
        """Return the texts quoted as ``lang`` quotes them."""
        start, end = QUOTES.get(lang, QUOTES[DEFAULT])
        return ", ".join(f"{start}{readable(text)}{end}" for text in self.texts)

    def __str__(self) -> str:
        return self.said(DEFAULT)

    def __repr__(self) -> str:
        return f"Quoted{self.texts!r}"


def _quoting(fields: dict[str, Any], lang: str) -> dict[str, Any]:
    """Return ``fields`` with each :class:`Quoted` one said with ``lang``'s quotation marks."""
    return {k: v.said(lang) if isinstance(v, Quoted) else v for k, v in fields.items()}


class Translator(Protocol):
    """What pages and sentences are said with: ``t(text, **fields)`` returns ``text`` (an
    English sentence, the catalogs' key) in a page's language, its ``{fields}`` filled."""

    def __call__(self, text: str, **fields: Any) -> str: ...


@cache
def catalog(lang: str) -> dict[str, str]:
    """Return the translations of ``lang`` (empty for English)."""
    path = _DIR / f"{lang}.json"
    if lang == DEFAULT or not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def letter_map(letters: str) -> dict[str, str]:
    """Return how ``letters`` (a key of ``LETTERS``) shows the ranks whose letter differs."""
    return _NORDIC.get(letters, {})


def lettered(text: str, letters: str) -> str:
    """Return ``text`` with each card it names (``Q♠``) and each run of ranks (``2–J``)
    shown with ``letters`` (``D♠``, ``2–Kn``)."""
    shown = letter_map(letters)
    if not shown:
        return text

    def letter(m: re.Match) -> str:
        if m[1]:
            return shown.get(m[1], m[1])
        return f"{shown.get(m[2], m[2])}–{shown.get(m[3], m[3])}"

    return _NAMED_RANKS.sub(letter, text)


def english(text: str, **fields: Any) -> str:
    """Return ``text`` (English, the catalogs' key) with its ``{fields}`` filled: what is said
    where no page asks for a language (a command line, a test, the camera's log)."""
    return text.format(**_quoting(fields, DEFAULT))


def translator(lang: str, letters: str = DEFAULT_LETTERS) -> Translator:
    """Return ``t(text, **fields)`` for ``lang``, naming cards with ``letters``."""
    lang = lang if lang in LANGUAGES else DEFAULT
    table = catalog(lang)

    mark = POSSESSIVE_AFTER_S.get(lang)

    def t(text: str, **fields: Any) -> str:
        out = table.get(text, text)
        if fields:
            fields = _quoting(fields, lang)
            if mark is not None:
                out = possessives(out, fields, mark)
            try:
                out = out.format(**fields)
            except (KeyError, IndexError, ValueError):
                out = text.format(**fields)
        return lettered(out, letters)

    return t


def possessives(template: str, fields: dict[str, Any], mark: str) -> str:
    """Return ``template`` with each ``{field}s`` whose name ends in s, x or z made
    ``{field}`` + ``mark``."""
    for key, value in fields.items():
        if isinstance(value, str) and value[-1:].lower() in ("s", "x", "z"):
            template = template.replace(f"{{{key}}}s", f"{{{key}}}{mark}")
    return template


def pick_language(cookie: str | None, accept: str | None) -> str:
    """Return the language from a cookie choice, else the best Accept-Language match."""
    if cookie in LANGUAGES:
        return cookie
    best, best_q = DEFAULT, -1.0
    for part in (accept or "").split(","):
        bits = part.strip().split(";")
        tag = bits[0].strip().lower()
        q = 1.0
        for b in bits[1:]:
            b = b.strip()
            if b.startswith("q="):
                try:
                    q = float(b[2:])
                except ValueError:
                    q = 0.0
        lang = _ALIASES.get(tag.split("-")[0])
        if lang and q > best_q:
            best, best_q = lang, q
    return best


def current_language() -> str:
    """Return this request's language (cached on ``g``)."""
    if "lang" not in g:
        g.lang = pick_language(request.cookies.get("lang"), request.headers.get("Accept-Language"))
    return g.lang


def current_letters() -> str:
    """Return the letters this request's user chose for the cards (see ``LETTERS``)."""
    chosen = request.cookies.get("letters")
    return chosen if chosen in LETTERS else DEFAULT_LETTERS


def current_translator() -> Translator:
    """Return ``t`` for this request's language and card letters."""
    return translator(current_language(), current_letters())


def t(text: str, **fields: Any) -> str:
    """Translate ``text`` into this request's language."""
    return current_translator()(text, **fields)


def init_app(app: Flask) -> None:
    """Give templates ``t``, ``lang``, the language list and the card letters."""

    @app.context_processor
    def inject() -> dict:
        return {
            "t": t,
            "lang": current_language(),
            "languages": LANGUAGES,
            "letters": current_letters(),
            "letter_sets": LETTERS,
            "letter_map": letter_map(current_letters()),
        }
