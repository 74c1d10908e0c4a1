"""Index-corner crops from labelled real photos, for fine-tuning the classifier.

The real photo sets label each card's box and rank (nine … ace); the suits of the edje-cards
train photos were added by hand (some only by colour). That is what the synthetic crops teach
least well: how a real deck looks through a phone camera (K, J and 10 are the usual rank
mix-ups; this deck's spades were read as clubs). Each labelled card is found with the
recognizer's own detector and refiner, so the crops are cut exactly as at run time; only cards
whose outline fits their labelled box and whose upright way is clear from its shape are kept.
The loss for such a crop is the total probability of the codes it may be (a partial label:
all four suits of its rank when the suit is unknown).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
import torch
from torch.utils.data import IterableDataset

from referee.cards import RANKS
from vision.crops import DEFAULT_SPEC, CropSpec, Pyramid, cut_corner
from vision.geometry import box_iou
from vision.images import read_image
from vision.recognizer import BACKGROUND, CLASS_NAMES, Recognizer, readings

if TYPE_CHECKING:
    from vision.realphotos import PhotoFrame


@dataclass(frozen=True)
class RealCard:
    """A real card found in a photo: its outline (clockwise from its own top-left) and the
    classifier classes it may be."""

    image: Path
    quad: np.ndarray
    classes: tuple[int, ...]


def label_mask(classes: tuple[int, ...]) -> torch.Tensor:
    """``(C,)`` bool: the classifier classes a crop may be."""
    mask = torch.zeros(len(CLASS_NAMES), dtype=torch.bool)
    mask[list(classes)] = True
    return mask


def possible_classes(rank: str, suits: str) -> tuple[int, ...]:
    """The classifier classes of ``rank`` in any of ``suits`` (``"SHDC"``: any suit)."""
    return tuple(CLASS_NAMES.index(rank + s) for s in suits if rank in RANKS)


def _bbox(q: np.ndarray) -> np.ndarray:
    return np.array([q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()], np.float32)


def find_real_cards(
    photos: Iterable[PhotoFrame], recognizer: Recognizer, min_iou: float = 0.75
) -> list[RealCard]:
    """Return the labelled cards of ``photos`` (read by :func:`vision.realphotos.read_photos`)
    whose outline the recognizer finds well."""
    out = []
    for p, frame in photos:
        cand = recognizer.find_cards(frame)
        if not len(cand):
            continue
        outlines = recognizer.refine_outlines(Pyramid(frame), cand.quads)
        fits = box_iou(p.boxes, np.stack([_bbox(q) for q in outlines]))
        suits = p.suits or ("SHDC",) * len(p.ranks)
        for k, (rank, may_be) in enumerate(zip(p.ranks, suits, strict=True)):
            j = int(fits[k].argmax())
            ways = readings(outlines[j])
            classes = possible_classes(rank, may_be)
            if fits[k, j] >= min_iou and len(ways) == 1 and classes:
                quad = np.roll(outlines[j], -ways[0], axis=0)
                out.append(RealCard(Path(p.image), quad, classes))
    return out


BACKGROUND_CLASSES = (CLASS_NAMES.index(BACKGROUND),)  # a crop of the photo's background


class RealCornerStream(IterableDataset):
    """An endless stream of ``(crop, mask)``: both index corners of the real cards, the
    outline jittered a little each time, light and colour varied, with the :func:`label_mask`
    of the codes each may be; and, one crop in ``background`` of them, a card-sized place
    outside every labelled card (carpet, wood, a flyer), labelled the background: a real
    background must not read as a card."""

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
        frames: dict[Path, Pyramid] = {}

        def frame(path: Path) -> Pyramid:
            if path not in frames:  # read whole before (read_photos): an error here is news
                frames[path] = Pyramid(read_image(path))
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
            crop_t = torch.from_numpy(np.ascontiguousarray(crop.transpose(2, 0, 1)))
            yield crop_t, label_mask(card.classes)

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
        crop_t = torch.from_numpy(np.ascontiguousarray(crop.transpose(2, 0, 1)))
        return crop_t, label_mask(BACKGROUND_CLASSES)


def partial_label_loss(logits: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """``-log P(label)``: the total probability of the classes each crop may be (``allowed``,
    ``(n, C)`` bool)."""
    logp = torch.log_softmax(logits, dim=1)
    masked = logp.masked_fill(~allowed, float("-inf"))
    return -torch.logsumexp(masked, dim=1).mean()
