"""Languages: English, Norwegian bokmål, Danish, Swedish — one small JSON dict each.

Keys are the English sentences; a missing translation falls back to English. The language
comes from the ``lang`` cookie (the user's choice) or the browser's Accept-Language.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

from flask import Flask, g, request

LANGUAGES = {"en": "English", "nb": "Norsk", "da": "Dansk", "sv": "Svenska"}
DECIMAL_MARKS = {"nb": ",", "da": ",", "sv": ","}  # "about 25,7 turns"; English keeps "."
DEFAULT = "en"
_ALIASES = {"no": "nb", "nn": "nb", "nb": "nb", "da": "da", "sv": "sv", "en": "en"}
_DIR = Path(__file__).parent / "translations"


@cache
def catalog(lang: str) -> dict[str, str]:
    """Return the translations of ``lang`` (empty for English)."""
    path = _DIR / f"{lang}.json"
    if lang == DEFAULT or not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def translator(lang: str) -> Callable[..., str]:
    """Return ``t(text, **fields)`` for ``lang``."""
    table = catalog(lang if lang in LANGUAGES else DEFAULT)

    def t(text: str, **fields) -> str:
        out = table.get(text, text)
        if fields:
            try:
                return out.format(**fields)
            except (KeyError, IndexError, ValueError):
                return text.format(**fields)
        return out

    t.decimal_mark = DECIMAL_MARKS.get(lang, ".")  # for the numbers a sentence says
    return t


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


def t(text: str, **fields) -> str:
    """Translate ``text`` into this request's language."""
    return translator(current_language())(text, **fields)


def init_app(app: Flask) -> None:
    """Give templates ``t``, ``lang`` and the language list."""

    @app.context_processor
    def inject() -> dict:
        return {"t": t, "lang": current_language(), "languages": LANGUAGES}
