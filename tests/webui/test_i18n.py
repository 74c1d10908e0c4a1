"""Languages: every sentence the pages use is translated, with the same placeholders."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from webui import i18n
from webui.camera import EMPTY_PHOTO, NO_RECOGNIZER, NOT_A_PICTURE

WEBUI = Path(i18n.__file__).parent
KEY = re.compile(r"""\bt\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""")


def used_keys() -> set[str]:
    keys = {NO_RECOGNIZER, NOT_A_PICTURE, EMPTY_PHOTO}  # a photo's problems, via t(problem)
    for path in [*WEBUI.rglob("*.html"), *WEBUI.rglob("*.py")]:
        for m in KEY.finditer(path.read_text(encoding="utf-8")):
            keys.add(m.group(1) or m.group(2))
    return keys


@pytest.mark.parametrize("lang", ["nb", "da", "sv"])
def test_every_sentence_is_translated_with_its_placeholders(lang):
    catalog = i18n.catalog(lang)
    keys = used_keys()
    assert len(keys) > 100
    missing = sorted(keys - catalog.keys())
    assert not missing, f"{lang} lacks {missing[:5]}"
    for key in keys:
        assert set(re.findall(r"{\w+}", key)) == set(re.findall(r"{\w+}", catalog[key])), key


@pytest.mark.parametrize(
    ("cookie", "accept", "lang"),
    [
        (None, "nb-NO,nb;q=0.9,en;q=0.5", "nb"),
        (None, "no", "nb"),
        (None, "da-DK", "da"),
        (None, "sv-SE,sv;q=0.8", "sv"),
        (None, "de-DE,de;q=0.9", "en"),
        (None, "en;q=0.4, sv;q=0.9", "sv"),
        (None, "sv;q=abc, da", "da"),
        (None, None, "en"),
        ("da", "sv", "da"),
        ("xx", "sv", "sv"),
    ],
)
def test_language_choice(cookie, accept, lang):
    assert i18n.pick_language(cookie, accept) == lang


def test_pages_speak_the_browsers_language_or_the_chosen_one(client):
    assert "Nytt spill" in client.get("/", headers={"Accept-Language": "nb"}).get_data(as_text=True)
    assert "Nyt spil" in client.get("/", headers={"Accept-Language": "da"}).get_data(as_text=True)
    client.get("/lang/sv")
    page = client.get("/", headers={"Accept-Language": "nb"}).get_data(as_text=True)
    assert "Nytt parti" in page and 'lang="sv"' in page


def test_move_labels_are_translated(client, make_table):
    t = make_table("stigespill")
    snap = client.get(f"/api/tables/{t['id']}", headers={"Accept-Language": "da"}).get_json()
    assert snap["moves"][0]["label"] == "Træk et terningkort"
