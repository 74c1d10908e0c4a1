"""Index-corner crops from labelled real photos, for fine-tuning the classifier.

The real photo sets label each card's box and rank only (nine … ace), not its suit. That is
still what the synthetic crops teach least well: how a real deck's ranks look through a phone
camera (K, J and 10 are the usual mix-ups). Each labelled card is found with the recognizer's
own detector and refiner, so the crops are cut exactly as at run time; only cards whose
outline fits their labelled box and whose upright way is clear from its shape are kept. The
loss for such a crop is the rank's total probability over the four suits (a partial label);
the suits keep being taught by the synthetic crops beside them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import torch
from torch.utils.data import IterableDataset

from referee.cards import RANKS
from vision.recognizer import (
    BACKGROUND,
    CLASS_NAMES,
    DEFAULT_SPEC,
    CropSpec,
    Recognizer,
    _Pyramid,
    box_iou,
    cut_corner,
    readings,
)


@dataclass(frozen=True)
class RealCard:
    """A real card found in a photo: its outline (clockwise from its own top-left) and rank."""

    image: Path
    quad: np.ndarray
    rank: int  # index into referee.cards.RANKS


def rank_mask() -> torch.Tensor:
    """``(14, C)`` bool: which classifier classes have each rank (any suit); the last row is
    the background."""
    mask = torch.zeros(len(RANKS) + 1, len(CLASS_NAMES), dtype=torch.bool)
    for c, name in enumerate(CLASS_NAMES):
        rank = name[:-1]
        if len(name) >= 2 and name[-1] in "SHDC" and rank in RANKS:
            mask[RANKS.index(rank), c] = True
    mask[len(RANKS), CLASS_NAMES.index(BACKGROUND)] = True
    return mask


def _bbox(q: np.ndarray) -> np.ndarray:
    return np.array([q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()], np.float32)


def find_real_cards(photos, recognizer: Recognizer, min_iou: float = 0.75) -> list[RealCard]:
    """Return the labelled cards of ``photos`` whose outline the recognizer finds well."""
    out = []
    for p in photos:
        frame = cv2.imread(str(p.image), cv2.IMREAD_COLOR)
        if frame is None:
            continue
        cand = recognizer.find_cards(frame)
        if not len(cand):
            continue
        outlines = recognizer.refine_outlines(_Pyramid(frame), cand.quads)
        fits = box_iou(p.boxes, np.stack([_bbox(q) for q in outlines]))
        for k, rank in enumerate(p.ranks):
            j = int(fits[k].argmax())
            ways = readings(outlines[j])
            if fits[k, j] >= min_iou and len(ways) == 1 and rank in RANKS:
                quad = np.roll(outlines[j], -ways[0], axis=0)
                out.append(RealCard(Path(p.image), quad, RANKS.index(rank)))
    return out


BACKGROUND_RANK = len(RANKS)  # the label of a crop of the photo's background


class RealCornerStream(IterableDataset):
    """An endless stream of ``(crop, rank)``: both index corners of the real cards, the
    outline jittered a little each time, light and colour varied; and, one crop in
    ``background`` of them, a card-sized place outside every labelled card (carpet, wood, a
    flyer), labelled :data:`BACKGROUND_RANK`: a real background must not read as a card."""

    def __init__(
        self,
        cards: list[RealCard],
        seed: int,
        photos=(),
        background: float = 0.3,
        spec: CropSpec = DEFAULT_SPEC,
    ) -> None:
        self.cards, self.seed, self.spec = cards, seed, spec
        self.photos, self.background = list(photos), background

    def __iter__(self):
        cv2.setNumThreads(1)
        rng = np.random.default_rng(self.seed)
        frames: dict[Path, _Pyramid] = {}

        def frame(path: Path) -> _Pyramid:
            if path not in frames:
                frames[path] = _Pyramid(cv2.imread(str(path), cv2.IMREAD_COLOR))
            return frames[path]

        while True:
            if self.photos and rng.random() < self.background:
                bg = self._background(rng, frame)
                if bg is not None:
                    yield bg
                continue
            card = self.cards[int(rng.integers(len(self.cards)))]
            w = float(np.linalg.norm(card.quad[1] - card.quad[0]))
            quad = card.quad + rng.normal(0, 0.025 * w, (4, 2)).astype(np.float32)
            crop = cut_corner(frame(card.image), quad, int(rng.choice((0, 2))), self.spec)
            x = crop.astype(np.float32) * rng.uniform(0.85, 1.15, 3) + rng.normal(0, 10)
            if rng.random() < 0.3:
                x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.4, 1.2))
            crop = np.clip(x, 0, 255).astype(np.uint8)
            yield torch.from_numpy(np.ascontiguousarray(crop.transpose(2, 0, 1))), card.rank

    def _background(self, rng: np.random.Generator, frame):
        """A crop of a card-sized quad lying clear of every labelled card, or None."""
        p = self.photos[int(rng.integers(len(self.photos)))]
        pyr = frame(Path(p.image))
        h, w = pyr.level(0).shape[:2]
        side = float(rng.uniform(0.08, 0.4)) * min(h, w)
        c = rng.uniform([side, side], [w - side, h - side])
        a = rng.uniform(0, 2 * np.pi)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        box = np.array([[-0.35, -0.5], [0.35, -0.5], [0.35, 0.5], [-0.35, 0.5]]) * side
        quad = (box @ rot.T + c).astype(np.float32)
        if len(p.boxes) and box_iou(_bbox(quad)[None], p.boxes).max() > 0:
            return None
        crop = cut_corner(pyr, quad, int(rng.choice((0, 2))), self.spec)
        return torch.from_numpy(np.ascontiguousarray(crop.transpose(2, 0, 1))), BACKGROUND_RANK


def partial_label_loss(logits: torch.Tensor, ranks: torch.Tensor, mask: torch.Tensor):
    """``-log P(rank)``, the rank's probability summed over its suits."""
    logp = torch.log_softmax(logits, dim=1)
    masked = logp.masked_fill(~mask[ranks], float("-inf"))
    return -torch.logsumexp(masked, dim=1).mean()
