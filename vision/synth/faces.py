"""Card faces: procedural decks drawn with OpenCV/numpy only, and real-art decks from a folder.

A :class:`CardFace` is a BGRA image of one card (transparent outside its rounded corners) that
knows where its two index corners are. Procedural faces need no font files or downloads: text
is OpenCV's Hershey fonts and the suit symbols are polygons drawn here.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

import cv2
import numpy as np

from referee.cards import RANKS, Suit, all_codes, parse_card
from vision.images import check_file

# Procedural faces are drawn this tall (pixels); cards in scenes are at most ~400 px wide.
FACE_HEIGHT = 352
# Real-art faces are stored this wide after loading (the shared decks are 500 px wide).
ART_WIDTH = 320
CARD_HEIGHT_MM = 88.0
STANDARD_CODES: tuple[str, ...] = tuple(c for c in all_codes() if len(c) <= 3 and c[-1] in "SHDC")
SKIPBO_CODES: tuple[str, ...] = tuple(c for c in all_codes() if c.startswith("SB"))


class DeckError(ValueError):
    """A deck folder that cannot be used; the message names the folder and the bad cards."""


@dataclass(eq=False)
class CardFace:
    """One card face (or back), ready to be warped into a scene.

    image: ``(h, w, 4)`` BGRA uint8, alpha 0 outside the rounded corners.
    index_quads: ``(k, 4, 2)`` float32 card-pixel points of the index corners (k = 2 for a face,
        0 for a back): the top-left index first, then the bottom-right one. Each quad runs
        clockwise from the index's own top-left as it reads upright, so the bottom-right index
        (printed upside down) starts at the point nearest the card's bottom-right corner.
    code: the card code, or ``None`` for a back.
    deck: the name of the deck design.
    size_mm: physical ``(width, height)`` in millimetres.
    """

    image: np.ndarray
    index_quads: np.ndarray
    code: str | None
    deck: str
    size_mm: tuple[float, float]
    _mips: list[np.ndarray] = field(default_factory=list, repr=False)
    _area: float = field(default=-1.0, repr=False)

    @property
    def width(self) -> int:
        """Return the face image's width in pixels."""
        return self.image.shape[1]

    @property
    def height(self) -> int:
        """Return the face image's height in pixels."""
        return self.image.shape[0]

    @property
    def alpha_fraction(self) -> float:
        """Return the share of the card rectangle that is card (less the rounded corners)."""
        if self._area < 0:
            self._area = float(self.image[..., 3].mean()) / 255.0
        return self._area

    def mip(self, level: int) -> np.ndarray:
        """Return the face downscaled by ``2**level`` (cached), so small cards warp unaliased."""
        if not self._mips:
            self._mips.append(self.image)
        while len(self._mips) <= level:
            prev = self._mips[-1]
            if min(prev.shape[:2]) < 16:
                break
            self._mips.append(cv2.pyrDown(prev))
        return self._mips[min(level, len(self._mips) - 1)]

    def corners(self) -> np.ndarray:
        """Return the ``(4, 2)`` card-pixel corners TL, TR, BR, BL."""
        w, h = self.width, self.height
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


# ---------------------------------------------------------------------------------------------
# Suit symbols as polygons of unit height, centred on (0, 0), y down.
def _heart_parts() -> list[np.ndarray]:
    t = np.linspace(0, 2 * np.pi, 72, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    pts = np.stack([x, y], 1)
    pts -= (pts.max(0) + pts.min(0)) / 2
    return [pts / (pts[:, 1].max() - pts[:, 1].min())]


def _spade_parts() -> list[np.ndarray]:
    body = _heart_parts()[0].copy()
    body[:, 1] = -body[:, 1]
    body *= 0.82
    body[:, 1] -= 0.09
    stem = np.array([[0, 0.05], [0.07, 0.3], [0.2, 0.5], [-0.2, 0.5], [-0.07, 0.3]])
    return [body, stem]


def _club_parts() -> list[np.ndarray]:
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    circ = np.stack([np.cos(t), np.sin(t)], 1) * 0.215
    stem = np.array([[0, 0.0], [0.06, 0.28], [0.2, 0.5], [-0.2, 0.5], [-0.06, 0.28]])
    return [
        circ + np.array([0, -0.275]),
        circ + np.array([-0.235, 0.085]),
        circ + np.array([0.235, 0.085]),
        np.array([[-0.1, -0.1], [0.1, -0.1], [0.12, 0.12], [-0.12, 0.12]]),
        stem,
    ]


def _diamond_parts() -> list[np.ndarray]:
    # Slightly concave sides, as most decks draw them.
    pts = []
    corners = np.array([[0, -0.5], [0.37, 0], [0, 0.5], [-0.37, 0]])
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        for s in np.linspace(0, 1, 8, endpoint=False):
            p = a + (b - a) * s
            bow = math.sin(math.pi * s) * 0.035
            pts.append(p * (1 - bow / max(1e-6, float(np.linalg.norm(p)))))
    return [np.array(pts)]


_SUIT_PARTS = {
    Suit.HEARTS: _heart_parts(),
    Suit.SPADES: _spade_parts(),
    Suit.CLUBS: _club_parts(),
    Suit.DIAMONDS: _diamond_parts(),
}
_SUIT_WIDTH = {s: float(np.ptp(np.concatenate(p)[:, 0])) for s, p in _SUIT_PARTS.items()}


def draw_suit(
    img: np.ndarray,
    suit: Suit,
    cx: float,
    cy: float,
    h: float,
    color: Sequence[float],
    flip: bool = False,
) -> tuple[float, float, float, float]:
    """Draw a suit symbol ``h`` px tall centred at (cx, cy); return its ink box x0, y0, x1, y1."""
    boxes = []
    for part in _SUIT_PARTS[suit]:
        p = part * h * (-1 if flip else 1) + (cx, cy)
        boxes.append(np.concatenate([p.min(0), p.max(0)]))
        cv2.fillPoly(img, [np.round(p * 16).astype(np.int32)], color, cv2.LINE_AA, shift=4)
    b = np.array(boxes)
    return float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max())


# ---------------------------------------------------------------------------------------------
# Text: Hershey glyphs rendered once large, cropped to their ink and resized to any box.
@lru_cache(maxsize=512)
def _text_mask(text: str, font: int, thick: int) -> np.ndarray:
    scale = 4.0
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    img = np.zeros((th + base + 4 * thick + 8, tw + 4 * thick + 8), np.uint8)
    cv2.putText(
        img, text, (2 * thick + 4, th + 2 * thick + 4), font, scale, 255, thick, cv2.LINE_AA
    )
    ys, xs = np.nonzero(img > 40)
    return img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def text_aspect(text: str, font: int, thick: int) -> float:
    """Return width/height of the ink of ``text`` in a Hershey font."""
    m = _text_mask(text, font, thick)
    return m.shape[1] / m.shape[0]


def paste_mask(
    img: np.ndarray,
    mask: np.ndarray,
    x: float,
    y: float,
    w: float,
    h: float,
    color: Sequence[float],
) -> None:
    """Blend ``color`` into ``img`` through ``mask`` resized to the box (x, y, w, h)."""
    x0, y0 = round(x), round(y)
    w, h = max(1, round(w)), max(1, round(h))
    m = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA)
    H, W = img.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
    if xa >= xb or ya >= yb:
        return
    m = m[ya - y0 : yb - y0, xa - x0 : xb - x0, None].astype(np.float32) / 255.0
    roi = img[ya:yb, xa:xb, :3]
    roi[:] = (roi * (1 - m) + np.asarray(color, np.float32)[:3] * m).astype(np.uint8)


def draw_text(
    img: np.ndarray,
    text: str,
    x: float,
    y: float,
    w: float,
    h: float,
    color: Sequence[float],
    font: int,
    thick: int,
    flip: bool = False,
) -> None:
    """Draw ``text`` stretched into the box (x, y, w, h), rotated 180° if ``flip``."""
    m = _text_mask(text, font, thick)
    if flip:
        m = m[::-1, ::-1]
    paste_mask(img, m, x, y, w, h, color)


# ---------------------------------------------------------------------------------------------
FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
INK_BLACK = (28, 24, 22)
REDS = ((38, 28, 200), (45, 35, 215), (60, 30, 180))
FOUR_COLOUR = {
    Suit.SPADES: (25, 25, 25),
    Suit.HEARTS: (40, 30, 205),
    Suit.DIAMONDS: (170, 90, 20),
    Suit.CLUBS: (50, 130, 30),
}
PAPERS = ((250, 250, 250), (238, 246, 250), (226, 240, 247), (245, 245, 240), (235, 238, 236))
BACK_COLOURS = ((40, 40, 170), (150, 70, 30), (40, 110, 40), (40, 40, 40), (110, 40, 90))
ROBE_COLOURS = ((40, 40, 190), (160, 80, 30), (40, 170, 220), (30, 30, 30), (50, 120, 40))


@dataclass(frozen=True)
class FaceStyle:
    """The look of one procedural deck; every field is something real decks vary."""

    style_id: int
    width_mm: float  # 63 poker, 57 bridge; height is always 88
    radius: float  # corner radius, fraction of the width
    paper: tuple[int, int, int]
    red: tuple[int, int, int]
    four_colour: bool
    ace_letter: str  # "A" or "E"
    jack_letter: str  # "J", "Kn" or "B"
    queen_letter: str  # "Q" or "D"
    font: int
    thick: float  # stroke thickness factor
    index_h: float  # rank height, fraction of card height (jumbo ≈ 0.15)
    index_side: bool  # suit beside the rank instead of below it
    index_margin: float  # fraction of the width
    condensed: float  # width factor of the rank glyphs
    pip_h: float  # fraction of card height
    pip_inset: float  # fraction of width between edge and pip columns
    border: int  # 0 none, 1 thin line, 2 double line
    court: int  # 0 figure, 1 pattern
    back_colour: tuple[int, int, int]
    back_pattern: int

    @property
    def name(self) -> str:
        """Return the style's deck name (``proc07``)."""
        return f"proc{self.style_id:02d}"


def procedural_style(style_id: int) -> FaceStyle:
    """Return the procedural deck style number ``style_id`` (deterministic)."""
    r = np.random.default_rng([7919, style_id])
    jumbo = r.random() < 0.3
    nordic = r.random() < 0.3
    return FaceStyle(
        style_id=style_id,
        width_mm=63.0 if r.random() < 0.7 else 57.0,
        radius=float(r.uniform(0.035, 0.1)),
        paper=PAPERS[r.integers(len(PAPERS))],
        red=REDS[r.integers(len(REDS))],
        four_colour=bool(r.random() < 0.2),
        ace_letter="E" if nordic and r.random() < 0.6 else "A",
        jack_letter=("Kn" if r.random() < 0.6 else "B") if nordic else "J",
        queen_letter="D" if nordic else "Q",
        font=int(FONTS[r.integers(len(FONTS))]),
        thick=float(r.uniform(0.8, 1.5)),
        index_h=float(r.uniform(0.13, 0.16) if jumbo else r.uniform(0.085, 0.115)),
        index_side=bool(jumbo and r.random() < 0.4),
        index_margin=float(r.uniform(0.04, 0.08)),
        condensed=float(r.uniform(0.75, 1.15)),
        pip_h=float(r.uniform(0.11, 0.15)),
        pip_inset=float(r.uniform(0.24, 0.32)),
        border=int(r.choice([0, 0, 1, 2])),
        court=int(r.random() < 0.25),
        back_colour=BACK_COLOURS[r.integers(len(BACK_COLOURS))],
        back_pattern=int(r.integers(4)),
    )


def _rounded_alpha(w: int, h: int, radius: float) -> np.ndarray:
    a = np.zeros((h, w), np.uint8)
    r = max(2, round(radius))
    cv2.rectangle(a, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(a, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(a, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return a


def _suit_colour(style: FaceStyle, suit: Suit) -> tuple[int, int, int]:
    if style.four_colour:
        return FOUR_COLOUR[suit]
    return style.red if suit.is_red else INK_BLACK


def _rank_text(style: FaceStyle, rank: str) -> str:
    return {"A": style.ace_letter, "J": style.jack_letter, "Q": style.queen_letter}.get(rank, rank)


def _draw_index(img, style: FaceStyle, text: str, suit: Suit | None, color, *, stacked=None):
    """Draw the top-left index; return its ink box (x0, y0, x1, y1)."""
    W, H = img.shape[1], img.shape[0]
    thick = max(2, round(style.thick * 9))
    ih = style.index_h * H
    x0 = style.index_margin * W
    y0 = style.index_margin * W * 0.9
    if stacked is not None:  # JOKER / SKIP-BO: letters one under another
        lh = min(ih * 0.55, H * 0.055)
        lw = 0
        for i, ch in enumerate(stacked):
            cw = lh * text_aspect(ch, style.font, thick) * style.condensed
            draw_text(img, ch, x0, y0 + i * lh * 1.12, cw, lh, color, style.font, thick)
            lw = max(lw, cw)
        return x0, y0, x0 + lw, y0 + (len(stacked) - 1) * lh * 1.12 + lh
    aspect = text_aspect(text, style.font, thick) * style.condensed
    if len(text) == 2:
        aspect *= 0.8  # "10" and "Kn" are drawn narrower, as on real cards
    # keep the index within a third of the card's width, as real jumbo indices are
    total = aspect + (0.9 if style.index_side and suit is not None else 0.0)
    ih = min(ih, 0.3 * W / total)
    tw = ih * aspect
    draw_text(img, text, x0, y0, tw, ih, color, style.font, thick)
    box = [x0, y0, x0 + tw, y0 + ih]
    if suit is not None:
        sh = ih * (0.75 if style.index_side else 0.8)
        if style.index_side:
            cx, cy = x0 + tw + ih * 0.12 + sh * _SUIT_WIDTH[suit] / 2, y0 + ih / 2
        else:
            cx, cy = x0 + tw / 2, y0 + ih * 1.12 + sh / 2
            cx = max(cx, x0 + sh * _SUIT_WIDTH[suit] / 2)
        b = draw_suit(img, suit, cx, cy, sh, color)
        box = [min(box[0], b[0]), min(box[1], b[1]), max(box[2], b[2]), max(box[3], b[3])]
    return tuple(box)


def _mirror_lower_half(img: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> None:
    """Copy the upper half of a box rotated 180° into its lower half (double-headed courts)."""
    ym = (y0 + y1) // 2
    top = img[y0:ym, x0:x1].copy()
    img[y1 - (ym - y0) : y1, x0:x1] = top[::-1, ::-1]


def _draw_court(img, style: FaceStyle, rank: str, suit: Suit, color, rng, left: float) -> None:
    W, H = img.shape[1], img.shape[0]
    fx0, fy0 = round(min(max(W * 0.19, left), W * 0.3)), round(H * 0.13)
    fx1, fy1 = W - fx0, H - fy0
    fw, fh = fx1 - fx0, fy1 - fy0
    robe = [ROBE_COLOURS[i] for i in rng.permutation(len(ROBE_COLOURS))[:3]]
    if style.court == 1:  # geometric pattern with a big letter
        cv2.rectangle(img, (fx0, fy0), (fx1, fy1), robe[0], -1)
        for k in range(6):
            pts = np.array(
                [
                    [fx0 + fw / 2, fy0 + k * fh / 12],
                    [fx1 - k * fw / 12, fy0 + fh / 2],
                    [fx0 + fw / 2, fy1 - k * fh / 12],
                    [fx0 + k * fw / 12, fy0 + fh / 2],
                ]
            )
            cv2.polylines(img, [pts.astype(np.int32)], True, robe[1 + k % 2], 3, cv2.LINE_AA)
        lh = fh * 0.3
        lw = lh * text_aspect(rank, style.font, 12) * 0.9
        cv2.rectangle(
            img,
            (round(fx0 + fw / 2 - lw * 0.7), round(fy0 + fh / 2 - lh * 0.7)),
            (round(fx0 + fw / 2 + lw * 0.7), round(fy0 + fh / 2 + lh * 0.7)),
            style.paper,
            -1,
        )
        draw_text(
            img, rank, fx0 + fw / 2 - lw / 2, fy0 + fh / 2 - lh / 2, lw, lh, color, style.font, 12
        )
    else:  # a stylised double-headed figure
        cx = fx0 + fw / 2
        ym = fy0 + fh / 2
        # robe / shoulders
        body = np.array(
            [
                [cx - fw * 0.42, ym],
                [cx - fw * 0.3, fy0 + fh * 0.3],
                [cx + fw * 0.3, fy0 + fh * 0.3],
                [cx + fw * 0.42, ym],
            ]
        )
        cv2.fillPoly(img, [body.astype(np.int32)], robe[0], cv2.LINE_AA)
        for k in range(4):  # robe stripes and trim
            yk = fy0 + fh * (0.33 + k * 0.04)
            cv2.line(
                img,
                (round(cx - fw * 0.3 - k * 3), round(yk)),
                (round(cx + fw * 0.3 + k * 3), round(yk)),
                robe[1 + k % 2],
                3,
                cv2.LINE_AA,
            )
        cv2.fillPoly(
            img,
            [
                np.array(
                    [[cx - fw * 0.08, fy0 + fh * 0.3], [cx + fw * 0.08, fy0 + fh * 0.3], [cx, ym]],
                    np.int32,
                )
            ],
            robe[2],
            cv2.LINE_AA,
        )
        # head, hair, face details
        hr = fw * 0.13
        hy = fy0 + fh * 0.2
        hair = (30, 60, 110) if rng.random() < 0.5 else (40, 160, 200)
        cv2.ellipse(
            img,
            (round(cx), round(hy)),
            (round(hr * 1.15), round(hr * 1.25)),
            0,
            0,
            360,
            hair,
            -1,
            cv2.LINE_AA,
        )
        cv2.ellipse(
            img,
            (round(cx), round(hy + hr * 0.15)),
            (round(hr * 0.85), round(hr)),
            0,
            0,
            360,
            (170, 200, 240),
            -1,
            cv2.LINE_AA,
        )
        for ex in (-0.35, 0.35):
            cv2.circle(
                img,
                (round(cx + ex * hr), round(hy + hr * 0.05)),
                max(1, round(hr * 0.1)),
                INK_BLACK,
                -1,
                cv2.LINE_AA,
            )
        cv2.ellipse(
            img,
            (round(cx), round(hy + hr * 0.5)),
            (round(hr * 0.3), round(hr * 0.12)),
            0,
            0,
            180,
            (40, 40, 160),
            2,
            cv2.LINE_AA,
        )
        # headwear by rank
        top = hy - hr * 1.1
        if rank == "K":
            crown = np.array(
                [
                    [cx - hr, top + hr * 0.2],
                    [cx - hr, top - hr * 0.6],
                    [cx - hr * 0.5, top - hr * 0.1],
                    [cx, top - hr * 0.8],
                    [cx + hr * 0.5, top - hr * 0.1],
                    [cx + hr, top - hr * 0.6],
                    [cx + hr, top + hr * 0.2],
                ]
            )
            cv2.fillPoly(img, [crown.astype(np.int32)], (30, 190, 230), cv2.LINE_AA)
            cv2.polylines(img, [crown.astype(np.int32)], True, INK_BLACK, 1, cv2.LINE_AA)
        elif rank == "Q":
            cv2.ellipse(
                img,
                (round(cx), round(top + hr * 0.1)),
                (round(hr * 0.9), round(hr * 0.45)),
                0,
                180,
                360,
                (30, 190, 230),
                -1,
                cv2.LINE_AA,
            )
            for k in range(5):
                cv2.circle(
                    img,
                    (round(cx - hr * 0.7 + k * hr * 0.35), round(top - hr * 0.2)),
                    max(1, round(hr * 0.12)),
                    robe[1],
                    -1,
                    cv2.LINE_AA,
                )
        else:
            cap = np.array(
                [
                    [cx - hr * 1.2, top + hr * 0.3],
                    [cx + hr * 1.3, top + hr * 0.1],
                    [cx + hr * 0.3, top - hr * 0.7],
                ]
            )
            cv2.fillPoly(img, [cap.astype(np.int32)], robe[1], cv2.LINE_AA)
            cv2.line(
                img,
                (round(cx + hr * 0.3), round(top - hr * 0.7)),
                (round(cx + hr * 1.1), round(top - hr * 1.2)),
                robe[2],
                3,
                cv2.LINE_AA,
            )
        # a sceptre/sword and a suit pip in the frame
        cv2.line(
            img,
            (round(cx + fw * 0.25), round(fy0 + fh * 0.06)),
            (round(cx + fw * 0.2), round(ym)),
            (40, 150, 200),
            4,
            cv2.LINE_AA,
        )
        draw_suit(img, suit, fx0 + fw * 0.14, fy0 + fh * 0.09, fh * 0.08, color)
        img[round(ym) - 1 : round(ym) + 1, fx0:fx1] = robe[2]
        _mirror_lower_half(img, fx0, fy0, fx1, fy1)
    cv2.rectangle(img, (fx0, fy0), (fx1, fy1), color, 2, cv2.LINE_AA)


_PIPS: dict[int, list[tuple[float, float]]] = {
    2: [(0.5, 0), (0.5, 1)],
    3: [(0.5, 0), (0.5, 0.5), (0.5, 1)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)],
    5: [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    7: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    8: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
    10: [
        (0, 0),
        (1, 0),
        (0.5, 1 / 6),
        (0, 1 / 3),
        (1, 1 / 3),
        (0, 2 / 3),
        (1, 2 / 3),
        (0.5, 5 / 6),
        (0, 1),
        (1, 1),
    ],
}


def _draw_back(img, style_colour, pattern: int, rng) -> None:
    W, H = img.shape[1], img.shape[0]
    m = round(W * rng.uniform(0.04, 0.08))
    cv2.rectangle(img, (m, m), (W - m, H - m), style_colour, -1)
    light = tuple(int(min(255, c + 90)) for c in style_colour)
    if pattern == 0:  # lattice
        for k in range(-H, W + H, 14):
            cv2.line(img, (m + k, m), (m + k + H, m + H), light, 2, cv2.LINE_AA)
            cv2.line(img, (m + k, m), (m + k - H, m + H), light, 2, cv2.LINE_AA)
    elif pattern == 1:  # dots
        for y in range(m + 8, H - m, 16):
            for x in range(m + 8 + (y // 16 % 2) * 8, W - m, 16):
                cv2.circle(img, (x, y), 4, light, -1, cv2.LINE_AA)
    elif pattern == 2:  # concentric diamonds
        cx, cy = W // 2, H // 2
        for r in range(8, max(W, H), 12):
            pts = np.array([[cx, cy - r], [cx + r, cy], [cx, cy + r], [cx - r, cy]], np.int32)
            cv2.polylines(img, [pts], True, light, 2, cv2.LINE_AA)
    else:  # scroll-like rings
        for y in range(m, H - m + 30, 30):
            for x in range(m, W - m + 30, 30):
                cv2.circle(img, (x, y), 13, light, 2, cv2.LINE_AA)
    img[:m], img[-m:], img[:, :m], img[:, -m:] = 255, 255, 255, 255
    cv2.rectangle(img, (m + 4, m + 4), (W - m - 4, H - m - 4), light, 2, cv2.LINE_AA)


def _flip_box(box, W, H) -> np.ndarray:
    x0, y0, x1, y1 = box
    tl = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    return np.stack([tl, np.array([W, H], np.float32) - tl])


def _pad(box, p):
    return (box[0] - p, box[1] - p, box[2] + p, box[3] + p)


def _blank(style_w_mm: float, radius: float, paper) -> tuple[np.ndarray, np.ndarray]:
    """Return a paper-coloured BGR canvas and its rounded-corner alpha."""
    H = FACE_HEIGHT
    W = round(H * style_w_mm / CARD_HEIGHT_MM)
    img = np.empty((H, W, 3), np.uint8)
    img[:] = paper
    return img, _rounded_alpha(W, H, radius * W)


def _draw_border(img, style: FaceStyle):
    if not style.border:
        return
    W, H = img.shape[1], img.shape[0]
    r = round(style.radius * W * 0.6)
    m = round(W * 0.025)
    col = style.red if style.border == 2 else INK_BLACK
    for k in range(style.border):
        mm = m + 4 * k
        cv2.rectangle(img, (mm + r // 2, mm), (W - mm - r // 2, H - mm), col, 1, cv2.LINE_AA)


# ~0.45 MB per face with its mipmaps: the cache holds about 1500 faces (~0.7 GB) at most.
@lru_cache(maxsize=1500)
def procedural_face(style_id: int, code: str | None) -> CardFace:
    """Return the face of ``code`` (``None`` for the back) in procedural style ``style_id``."""
    style = procedural_style(style_id)
    img, alpha = _blank(style.width_mm, style.radius, style.paper)
    H, W = alpha.shape
    rng = np.random.default_rng([style_id, zlib.crc32((code or "BACK").encode())])
    size = (style.width_mm, CARD_HEIGHT_MM)
    if code is None:
        _draw_back(img, style.back_colour, style.back_pattern, rng)
        return CardFace(
            np.dstack([img, alpha]), np.zeros((0, 4, 2), np.float32), None, style.name, size
        )
    card = parse_card(code)
    _draw_border(img, style)
    if card.kind == "joker":
        color = style.red if rng.random() < 0.5 else INK_BLACK
        box = _draw_index(img, style, "", None, color, stacked="JOKER")
        _draw_joker(img, style, color)
    elif card.kind == "skipbo":
        raise ValueError("Skip-Bo faces come from skipbo_face()")
    else:
        assert card.suit is not None, "a standard card"
        color = _suit_colour(style, card.suit)
        box = _draw_index(img, style, _rank_text(style, card.rank), card.suit, color)
        n = card.rank_value
        if card.rank in ("J", "Q", "K"):
            _draw_court(img, style, _rank_text(style, card.rank), card.suit, color, rng, box[2] + 3)
        elif n == 1:
            h = H * (0.42 if card.suit is Suit.SPADES else 0.3)
            draw_suit(img, card.suit, W / 2, H / 2, h, color)
        else:
            ph = style.pip_h * H * (0.9 if n >= 9 else 1.0)
            # Pip columns keep clear of the index, as jumbo-index decks do.
            inset = max(style.pip_inset * W, box[2] + ph * 0.3)
            inset = min(inset, W * 0.36)
            px0, px1 = inset, W - inset
            py0, py1 = H * 0.2 + ph / 2 - H * 0.02, H * 0.8 - ph / 2 + H * 0.02
            for u, v in _PIPS[n]:
                draw_suit(
                    img,
                    card.suit,
                    px0 + u * (px1 - px0),
                    py0 + v * (py1 - py0),
                    ph,
                    color,
                    flip=v > 0.5,
                )
    # The bottom-right index is the top-left one rotated 180° about the card centre.
    box = _pad(box, 2)
    bx0, by0, bx1, by1 = (round(v) for v in box)
    patch = img[max(0, by0) : by1, max(0, bx0) : bx1].copy()
    img[H - by1 : H - max(0, by0), W - bx1 : W - max(0, bx0)] = patch[::-1, ::-1]
    return CardFace(np.dstack([img, alpha]), _flip_box(box, W, H), code, style.name, size)


def _draw_joker(img, style: FaceStyle, color) -> None:
    W, H = img.shape[1], img.shape[0]
    cx, cy = W / 2, H / 2
    hr = W * 0.12
    cv2.ellipse(
        img,
        (round(cx), round(cy)),
        (round(hr), round(hr * 1.15)),
        0,
        0,
        360,
        (170, 200, 240),
        -1,
        cv2.LINE_AA,
    )
    for k, ang in enumerate((-50, 0, 50)):  # three-pointed jester hat with bells
        tip = (
            cx + math.sin(math.radians(ang)) * hr * 2.6,
            cy - hr * 0.6 - math.cos(math.radians(ang)) * hr * 2.2,
        )
        tri = np.array(
            [
                [cx - hr * 0.9 + k * hr * 0.6, cy - hr * 0.6],
                [cx - hr * 0.3 + k * hr * 0.6, cy - hr * 0.6],
                tip,
            ]
        )
        cv2.fillPoly(img, [tri.astype(np.int32)], ROBE_COLOURS[k], cv2.LINE_AA)
        cv2.circle(
            img, (round(tip[0]), round(tip[1])), round(hr * 0.22), (30, 190, 230), -1, cv2.LINE_AA
        )
    for ex in (-0.35, 0.35):
        cv2.circle(
            img,
            (round(cx + ex * hr), round(cy)),
            max(1, round(hr * 0.12)),
            INK_BLACK,
            -1,
            cv2.LINE_AA,
        )
    cv2.ellipse(
        img,
        (round(cx), round(cy + hr * 0.4)),
        (round(hr * 0.5), round(hr * 0.3)),
        0,
        0,
        180,
        (40, 40, 180),
        3,
        cv2.LINE_AA,
    )
    collar = np.array(
        [[cx - hr * 1.5, cy + hr * 1.2], [cx + hr * 1.5, cy + hr * 1.2], [cx, cy + hr * 2.6]]
    )
    cv2.fillPoly(img, [collar.astype(np.int32)], ROBE_COLOURS[3], cv2.LINE_AA)
    draw_text(img, "JOKER", W * 0.25, H * 0.78, W * 0.5, H * 0.06, color, style.font, 8)


# ---------------------------------------------------------------------------------------------
# Skip-Bo: blue 1–4, green 5–8, red 9–12, and the orange wild "SKIP-BO".
SKIPBO_COLOURS = {1: (190, 90, 20), 2: (60, 150, 30), 3: (40, 30, 210)}
SKIPBO_WILD_COLOUR = (20, 110, 240)


@lru_cache(maxsize=512)
def skipbo_face(style_id: int, code: str | None) -> CardFace:
    """Return the Skip-Bo card ``code`` (or the back) in Skip-Bo style ``style_id``."""
    r = np.random.default_rng([4421, style_id])
    font = int(FONTS[r.integers(4)])
    radius = float(r.uniform(0.05, 0.1))
    band = r.random() < 0.5
    paper = PAPERS[r.integers(2)]
    img, alpha = _blank(56.0, radius, paper)
    H, W = alpha.shape
    size = (56.0, CARD_HEIGHT_MM)
    name = f"skipbo{style_id:02d}"
    if code is None:
        img[:] = (30, 60, 200) if r.random() < 0.5 else (160, 60, 30)
        cv2.ellipse(
            img,
            (W // 2, H // 2),
            (round(W * 0.42), round(H * 0.18)),
            -30,
            0,
            360,
            (255, 255, 255),
            -1,
            cv2.LINE_AA,
        )
        draw_text(img, "SKIP-BO", W * 0.14, H * 0.45, W * 0.72, H * 0.1, (20, 110, 240), font, 10)
        return CardFace(np.dstack([img, alpha]), np.zeros((0, 4, 2), np.float32), None, name, size)
    value = parse_card(code).value
    color = SKIPBO_WILD_COLOUR if value == 0 else SKIPBO_COLOURS[(value - 1) // 4 + 1]
    thick = 10
    if band:
        cv2.rectangle(img, (0, round(H * 0.3)), (W, round(H * 0.7)), color, -1)
    m = W * 0.07
    if value == 0:
        lh = H * 0.045
        box = [m, m, m, m + 2 * lh * 1.15]
        for i, word in enumerate(("SKIP", "BO")):
            tw = lh * text_aspect(word, font, 6) * 0.85
            draw_text(img, word, m, m + i * lh * 1.15, tw, lh, color, font, 6)
            box[2] = max(box[2], m + tw)
        big_c = (255, 255, 255) if band else color
        draw_text(img, "SKIP-BO", W * 0.08, H * 0.44, W * 0.84, H * 0.12, big_c, font, 14)
    else:
        text = str(value)
        ih = H * float(r.uniform(0.09, 0.13))
        tw = ih * text_aspect(text, font, thick) * (0.8 if value >= 10 else 1.0)
        draw_text(img, text, m, m, tw, ih, color, font, thick)
        box = [m, m, m + tw, m + ih]
        bh = H * 0.3
        bw = bh * text_aspect(text, font, 20) * (0.75 if value >= 10 else 1.0)
        big_c = (255, 255, 255) if band else color
        draw_text(img, text, W / 2 - bw / 2, H / 2 - bh / 2, bw, bh, big_c, font, 20)
    box = _pad(box, 2)
    bx0, by0, bx1, by1 = (round(v) for v in box)
    patch = img[by0:by1, bx0:bx1].copy()
    img[H - by1 : H - by0, W - bx1 : W - bx0] = patch[::-1, ::-1]
    return CardFace(np.dstack([img, alpha]), _flip_box(box, W, H), code, name, size)


# ---------------------------------------------------------------------------------------------
class Deck:
    """A deck design: gives the face of any card code it has, and its back."""

    name: str = "deck"

    def has(self, code: str) -> bool:
        """Return whether the deck has a card of ``code``."""
        raise NotImplementedError

    def face(self, code: str) -> CardFace:
        """Return the face of the card ``code``."""
        raise NotImplementedError

    def back(self) -> CardFace:
        """Return the deck's back."""
        raise NotImplementedError

    @property
    def codes(self) -> tuple[str, ...]:
        """Return the codes of the cards the deck has, standard cards first."""
        return tuple(c for c in (*STANDARD_CODES, "JK", *SKIPBO_CODES) if self.has(c))


class ProceduralDeck(Deck):
    """A procedural standard deck (52 cards and jokers) in style ``style_id``."""

    def __init__(self, style_id: int) -> None:
        self.style_id = style_id
        self.name = procedural_style(style_id).name

    def has(self, code: str) -> bool:
        return code in STANDARD_CODES or code == "JK"

    def face(self, code: str) -> CardFace:
        return procedural_face(self.style_id, code)

    def back(self) -> CardFace:
        return procedural_face(self.style_id, None)


class SkipBoDeck(Deck):
    """A procedural Skip-Bo deck (SB1–SB12, SBW) in style ``style_id``."""

    def __init__(self, style_id: int) -> None:
        self.style_id = style_id
        self.name = f"skipbo{style_id:02d}"

    def has(self, code: str) -> bool:
        return code in SKIPBO_CODES

    def face(self, code: str) -> CardFace:
        return skipbo_face(self.style_id, code)

    def back(self) -> CardFace:
        return skipbo_face(self.style_id, None)


# A joker's or a back's file: JK.png, JK-1.png, JK2.png; BACK.png, BACK-red.png, BACKblue.png
_JOKER_FILE = re.compile(r"^JK", re.IGNORECASE)
_BACK_FILE = re.compile(r"^BACK", re.IGNORECASE)


class ImageDeck(Deck):
    """A real-art deck: a folder of PNGs named by card code (``QS.png``, ``10H.png``, ``JK-1.png``,
    ``BACK-red.png``).

    The 52 standard cards are required; jokers (``JK*.png``) and backs (``BACK*.png``) are optional
    (a deck without a back uses a plain procedural back). Files with other names are ignored.
    Raises :class:`DeckError` naming the folder and every missing or unreadable card.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = self.path.name or str(self.path)
        if not self.path.is_dir():
            raise DeckError(f"deck folder {str(self.path)!r} does not exist or is not a folder")
        files: dict[str, Path] = {}
        self.joker_files: list[Path] = []
        self.back_files: list[Path] = []
        for f in sorted(self.path.iterdir()):
            if f.suffix.lower() not in (".png", ".jpg", ".jpeg", ".webp"):
                continue
            if _JOKER_FILE.match(f.stem):
                self.joker_files.append(f)
            elif _BACK_FILE.match(f.stem):
                self.back_files.append(f)
            else:
                try:
                    c = parse_card(f.stem).code
                except ValueError:
                    continue
                if c in STANDARD_CODES:
                    files[c] = f
        missing = [c for c in STANDARD_CODES if c not in files]
        self._faces: dict[str, CardFace] = {}
        self._jokers: list[CardFace] = []
        self._backs: list[CardFace] = []
        unreadable: list[str] = []
        images: dict[str, np.ndarray] = {}
        for c, f in files.items():
            im = _load_art(f)
            if im is None:
                unreadable.append(f.name)
            else:
                images[c] = im
        jok = [(f, _load_art(f)) for f in self.joker_files]
        bak = [(f, _load_art(f)) for f in self.back_files]
        unreadable += [f.name for f, im in jok + bak if im is None]
        if missing or unreadable:
            parts = []
            if missing:
                parts.append(
                    f"missing {len(missing)} of the 52 standard cards: {', '.join(missing)}"
                )
            if unreadable:
                parts.append(f"unreadable images: {', '.join(unreadable)}")
            raise DeckError(
                f"deck folder {str(self.path)!r}: {'; '.join(parts)} "
                "(expected one image per card named by code, e.g. QS.png, 10H.png; "
                "JK*.png and BACK*.png are optional)"
            )
        quads = _measure_index_quads(images)
        ref = next(iter(images.values()))
        self.size_mm = (CARD_HEIGHT_MM * ref.shape[1] / ref.shape[0], CARD_HEIGHT_MM)
        for c, im in images.items():
            self._faces[c] = self._make(im, quads, c)
        # every one was read (an unreadable one is refused above)
        jokers = [im for _, im in jok if im is not None]
        self._jokers = [self._make(im, _measure_joker_quads(im, quads), "JK") for im in jokers]
        self._backs = [self._make(im, quads[:0], None) for _, im in bak if im is not None]

    def _make(self, im: np.ndarray, quads: np.ndarray, code: str | None) -> CardFace:
        h, w = im.shape[:2]
        q = quads * np.array([w, h], np.float32)
        return CardFace(
            im, q.astype(np.float32), code, self.name, (CARD_HEIGHT_MM * w / h, CARD_HEIGHT_MM)
        )

    def has(self, code: str) -> bool:
        return code in self._faces or (code == "JK" and bool(self._jokers))

    def face(self, code: str, variant: int = 0) -> CardFace:
        if code == "JK" and self._jokers:
            return self._jokers[variant % len(self._jokers)]
        try:
            return self._faces[code]
        except KeyError:
            raise DeckError(f"deck {self.name!r} has no card {code!r}") from None

    def back(self, variant: int = 0) -> CardFace:
        if self._backs:
            return self._backs[variant % len(self._backs)]
        return procedural_face(0, None)

    @property
    def index_quads(self) -> np.ndarray:
        """Return the measured index quads of this deck, as fractions of the card size."""
        f = self._faces["2C"]
        return f.index_quads / np.array([f.width, f.height], np.float32)


def _load_art(path: Path) -> np.ndarray | None:
    """Read a card image as BGRA, ``ART_WIDTH`` wide; ``None`` if it cannot be read."""
    try:
        check_file(path)
        data = np.fromfile(str(path), np.uint8)
    except OSError:
        return None
    im = cv2.imdecode(data, cv2.IMREAD_UNCHANGED) if data.size else None
    if im is None or im.ndim < 2 or min(im.shape[:2]) < 16:
        return None
    if im.ndim == 2:
        im = cv2.cvtColor(im, cv2.COLOR_GRAY2BGRA)
    elif im.shape[2] == 3:
        im = cv2.cvtColor(im, cv2.COLOR_BGR2BGRA)
    if im.dtype != np.uint8:
        im = (im / 257).astype(np.uint8)
    h, w = im.shape[:2]
    nh = round(h * ART_WIDTH / w)
    return cv2.resize(im, (ART_WIDTH, nh), interpolation=cv2.INTER_AREA)


def _measure_index_quads(images: dict[str, np.ndarray]) -> np.ndarray:
    """Estimate a deck's index corners from the ink of its number cards (fractions of the card).

    In the top-left region of each 2–10 card, the ink blobs that start close to the corner are the
    rank and the suit symbol (pips start further in). The union of their boxes over the cards,
    padded a little, is the index; the bottom-right index is its 180° rotation.
    """
    boxes = []
    for code, im in images.items():
        if code[:-1] not in RANKS[1:10]:
            continue
        h, w = im.shape[:2]
        region = _ink(im, round(h * 0.33), round(w * 0.3)).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(region, connectivity=8)
        sel = []
        for i in range(1, n):
            x, y, bw, bh, area = stats[i]
            if area < 6 or x > w * 0.16 or y > h * 0.2 or bw > w * 0.28:
                continue
            sel.append((x, y, x + bw, y + bh))
        if not sel:
            continue
        s = np.array(sel, np.float32)
        boxes.append([s[:, 0].min() / w, s[:, 1].min() / h, s[:, 2].max() / w, s[:, 3].max() / h])
    if not boxes:  # no measurable ink: the usual place of an index
        box = np.array([0.02, 0.02, 0.2, 0.26], np.float32)
    else:
        b = np.array(boxes)
        box = np.array(
            [
                np.percentile(b[:, 0], 10),
                np.percentile(b[:, 1], 10),
                np.percentile(b[:, 2], 90),
                np.percentile(b[:, 3], 90),
            ],
            np.float32,
        )
        box += np.array([-0.01, -0.008, 0.01, 0.008], np.float32)
        box = np.clip(box, 0, 1)
    return _flip_box(box, 1.0, 1.0)


def _ink(im: np.ndarray, h: int, w: int) -> np.ndarray:
    """Return the mask of pixels in the top-left ``h`` × ``w`` of a card that differ clearly
    from its paper colour (the card's own outline excluded)."""
    a_all = im[::8, ::8, 3] > 128
    paper = np.median(im[::8, ::8, :3][a_all].astype(np.int16), axis=0)
    crop = im[:h, :w]
    a = (crop[..., 3] > 128).astype(np.uint8)
    inner = cv2.erode(a, np.ones((7, 7), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0)
    diff = np.abs(crop[..., :3].astype(np.int16) - paper).max(axis=2)
    return (diff > 60) & (inner > 0)


def _measure_joker_quads(im: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Estimate a joker's index (often "JOKER" written downwards) from the ink at its corner.

    The rows with ink in a strip along the left edge, followed down from the corner across small
    gaps, give the index's height; its width is the ink in those rows near the edge. The result
    is padded and mirrored like a standard index.
    """
    h, w = im.shape[:2]
    ink = _ink(im, round(h * 0.65), round(w * 0.22))
    # numpy's stubs: any() over an axis may be one bool (not of this 2-D array)
    rows: np.ndarray = ink[:, : round(w * 0.12)].any(axis=1)  # type: ignore[assignment]
    ys = np.nonzero(rows[: round(h * 0.15)])[0]
    if ys.size == 0:
        return fallback
    y0 = y1 = int(ys[0])
    gap = round(h * 0.03)
    while y1 + 1 < h * 0.6 and rows[y1 + 1 : y1 + 1 + gap].any():
        y1 += 1 + int(np.argmax(rows[y1 + 1 : y1 + 1 + gap]))
    cols = np.nonzero(ink[y0 : y1 + 1, : round(w * 0.22)].any(axis=0))[0]
    b = np.array([cols[0] / w, y0 / h, (cols[-1] + 1) / w, (y1 + 1) / h], np.float32)
    b += np.array([-0.01, -0.008, 0.01, 0.008], np.float32)
    return _flip_box(np.clip(b, 0, 1), 1.0, 1.0)


@cache
def load_deck(path: str) -> ImageDeck:
    """Return the real-art deck in folder ``path`` (loaded once per process)."""
    return ImageDeck(path)


__all__ = [
    "CardFace",
    "Deck",
    "DeckError",
    "FaceStyle",
    "ImageDeck",
    "ProceduralDeck",
    "SkipBoDeck",
    "load_deck",
    "procedural_face",
    "procedural_style",
    "skipbo_face",
]
