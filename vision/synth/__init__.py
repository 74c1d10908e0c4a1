"""The table-scene generator: photo-like synthetic scenes of our games with exact labels.

API (all deterministic from a seed; numpy Generators only, never global random state)::

    from vision.synth import random_scene, yolo_lines, corner_crop, face_for
    scene = random_scene(seed=0, index=7)             # or layouts=("road",), deck_dirs=(...)
    scene.image                 # (720, 1280, 3) BGR uint8, before JPEG; scene.jpeg_image() with it
    for lab in scene.labels:    # one CardLabel per card, in stacking order (later = on top)
        lab.code                # "QS", "10H", "JK", "SB7", "SBW"; None for a face-down card
        lab.corners             # (4, 2) image points TL, TR, BR, BL as the card reads upright
        lab.visible             # fraction of the card in the image and not covered (exact)
        lab.index_corners       # (2, 4, 2) top-left and bottom-right index (rank + suit) quads,
                                # each clockwise from the index's own upright top-left
        lab.index_visible       # [f_tl, f_br] visible fractions of those quads
        lab.role                # {"role": "road", "position": 5} / {"role": "sten", "suit": "H",
                                # "pile": "upper", "depth": 2} / {"role": "skipbo", "zone":
                                # "discard", "owner": 2, "pile": 1, "depth": 3} / hand / scatter /
                                # die / discard
    scene.truth()               # the JSON ground truth (camera, light, occluders, cards)
    scene.idmap                 # (720, 1280) int16: index of the top card per pixel, -1 table,
                                # -2 occluder (before lens distortion: spec.camera.k1)
    yolo_lines(scene, "cards+corners")  # targets: cards | corners | cards+corners | codes

    # a specific scene (e.g. for videos): build or edit a SceneSpec and render it
    from vision.synth.scene import SceneSpec, sample_scene, render
    spec = sample_scene(rng, "road", [ProceduralDeck(3)], SkipBoDeck(0))
    spec.camera.H, spec.lighting, spec.occluders, spec.layout.cards  # edit, then render(spec)

    # classifier training without a scene: a rectified index-corner crop, degraded at random
    face = face_for("QS", style=5)            # or ImageDeck(dir).face("QS")
    crop = corner_crop(face, which=0, size=(48, 80), rng=np.random.default_rng(1))

CLI: ``kortbord dataset build --out DIR --images N --seed S [...]``, ``kortbord dataset preview``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Where each public name lives. The names are looked up on first use (PEP 562), so importing
# vision.synth.cli to build the command line does not load OpenCV and numpy: ``kortbord
# simulate`` needs neither.
_HOMES = {
    "card_image": "crops",
    "corner_crop": "crops",
    "face_for": "crops",
    "class_names": "dataset",
    "random_scene": "dataset",
    "yolo_lines": "dataset",
    "CardFace": "faces",
    "Deck": "faces",
    "DeckError": "faces",
    "ImageDeck": "faces",
    "ProceduralDeck": "faces",
    "SkipBoDeck": "faces",
    "load_deck": "faces",
    "CardLabel": "scene",
    "Scene": "scene",
    "SceneSpec": "scene",
    "render": "scene",
    "sample_scene": "scene",
}

if TYPE_CHECKING:
    from vision.synth.crops import card_image, corner_crop, face_for
    from vision.synth.dataset import class_names, random_scene, yolo_lines
    from vision.synth.faces import (
        CardFace,
        Deck,
        DeckError,
        ImageDeck,
        ProceduralDeck,
        SkipBoDeck,
        load_deck,
    )
    from vision.synth.scene import CardLabel, Scene, SceneSpec, render, sample_scene


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


__all__ = [  # the names _HOMES finds
    "CardFace",
    "CardLabel",
    "Deck",
    "DeckError",
    "ImageDeck",
    "ProceduralDeck",
    "Scene",
    "SceneSpec",
    "SkipBoDeck",
    "card_image",
    "class_names",
    "corner_crop",
    "face_for",
    "load_deck",
    "random_scene",
    "render",
    "sample_scene",
    "yolo_lines",
]
