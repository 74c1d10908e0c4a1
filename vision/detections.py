"""The one detections type that flows through every vision stage.

Only adapters (the recognizer's ONNX post-processing, the generator's ground truth) know
another format; every stage after them takes and returns :class:`Detections`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from referee.cards import parse_card


def points_json(points: np.ndarray) -> list[list[float]]:
    """Return ``(n, 2)`` image points as JSON, to a tenth of a pixel."""
    return [[round(float(x), 1), round(float(y), 1)] for x, y in points]


@dataclass(frozen=True)
class Detections:
    """Cards seen in one frame.

    corners: ``(n, 4, 2)`` float32 image points of each card, clockwise from the card's
        top-left as the card reads upright (top-left, top-right, bottom-right, bottom-left).
    codes: ``n`` card codes (``QS``, ``10H``, ``JK``, ``SB7``…), canonical.
    confidence: ``(n,)`` float32 in [0, 1].
    """

    corners: np.ndarray
    codes: tuple[str, ...]
    confidence: np.ndarray

    def __post_init__(self) -> None:
        corners = np.asarray(self.corners, dtype=np.float32).reshape(-1, 4, 2)
        confidence = np.asarray(self.confidence, dtype=np.float32).reshape(-1)
        codes = tuple(parse_card(c).code for c in self.codes)
        if not (len(corners) == len(codes) == len(confidence)):
            raise ValueError(
                f"detections disagree in length: {len(corners)} corners, {len(codes)} codes, "
                f"{len(confidence)} confidences"
            )
        object.__setattr__(self, "corners", corners)
        object.__setattr__(self, "confidence", confidence)
        object.__setattr__(self, "codes", codes)

    @classmethod
    def empty(cls) -> Detections:
        """Return detections of no cards."""
        return cls(np.zeros((0, 4, 2), np.float32), (), np.zeros(0, np.float32))

    @classmethod
    def from_list(cls, cards: Sequence[dict]) -> Detections:
        """Build from ``[{"code", "corners", "confidence"?}]`` (the JSON form).

        Raises ``ValueError`` saying what is wrong when ``cards`` is not of that form."""
        if not cards:
            return cls.empty()
        try:
            return cls(
                np.array([c["corners"] for c in cards], np.float32),
                tuple(c["code"] for c in cards),
                np.array([c.get("confidence", 1.0) for c in cards], np.float32),
            )
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            why = f"no {e}" if isinstance(e, KeyError) else str(e)
            raise ValueError(
                f'cards must be [{{"code", "corners": four [x, y], "confidence"?}}]: {why}'
            ) from e

    def to_list(self) -> list[dict]:
        """Return the JSON form: ``[{"code", "confidence", "corners"}]``."""
        return [
            {
                "code": code,
                "confidence": round(float(conf), 3),
                "corners": points_json(quad),
            }
            for code, conf, quad in zip(self.codes, self.confidence, self.corners, strict=True)
        ]

    def __len__(self) -> int:
        return len(self.codes)

    def __iter__(self) -> Iterator[tuple[str, float, np.ndarray]]:
        return iter(zip(self.codes, self.confidence.tolist(), self.corners, strict=True))

    def __getitem__(self, index) -> Detections:
        """Select by a boolean mask, index array or slice; returns new detections."""
        idx = np.arange(len(self))[index]
        idx = np.atleast_1d(idx)
        return Detections(
            self.corners[idx], tuple(self.codes[i] for i in idx), self.confidence[idx]
        )

    @property
    def centers(self) -> np.ndarray:
        """Return ``(n, 2)`` card centres."""
        return self.corners.mean(axis=1)

    @property
    def boxes(self) -> np.ndarray:
        """Return ``(n, 4)`` axis-aligned ``x1, y1, x2, y2`` around each card."""
        return np.concatenate([self.corners.min(axis=1), self.corners.max(axis=1)], axis=1)
