"""Builders shared by the vision tests."""

from __future__ import annotations

import numpy as np


def card_quad(cx, cy, w, h, deg):
    """Return the clockwise TL, TR, BR, BL corners of a w×h card centred at (cx, cy), turned."""
    a = np.deg2rad(deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    base = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
    return (base @ rot.T + [cx, cy]).astype(np.float32)
