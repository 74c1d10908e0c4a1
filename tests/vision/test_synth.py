"""The scene generator: labels match the pixels, visibility is exact, builds are reproducible."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from kortbord.cli import main
from referee.cards import all_codes
from vision.shared import DECKS
from vision.synth import corner_crop, face_for, random_scene, yolo_lines
from vision.synth.camera import Camera, Effects, Lighting, look_at
from vision.synth.dataset import BuildConfig, build, class_names
from vision.synth.faces import STANDARD_CODES, DeckError, ImageDeck, ProceduralDeck, SkipBoDeck
from vision.synth.layouts import Layout, Placed
from vision.synth.scene import Occluder, SceneSpec, render

SIZE = (640, 360)


def plain_spec(cards: list[Placed], tilt: float = 0.0, yaw: float = 0.0) -> SceneSpec:
    """A scene on a dark uniform table, neutral light, no effects or occluders."""
    pts = np.concatenate([c.quad() for c in cards])
    centre = (pts.min(0) + pts.max(0)) / 2
    H = look_at(centre, 600.0, tilt, yaw, 0.0, 500.0, SIZE)
    return SceneSpec(
        Layout("test", cards),
        Camera(H, SIZE),
        ("solid", 0x303030),
        Lighting(),
        Effects(jpeg=95),
        glossy=False,
    )


def _mask_of_quads(quads, dilate: int) -> np.ndarray:
    m = np.zeros(SIZE[::-1], np.uint8)
    for q in quads:
        cv2.fillPoly(m, [np.round(q).astype(np.int32)], 255)
    return cv2.dilate(m, np.ones((2 * dilate + 1,) * 2, np.uint8)) > 0


def _covered(spec: SceneSpec) -> tuple[np.ndarray, list]:
    """Render on a dark and a light table: pixels that do not change are covered by cards."""
    spec.table = ("solid", 0x282828)
    dark = render(spec)
    spec.table = ("solid", 0xD8D8D8)
    light = render(spec)
    same = np.abs(dark.image.astype(int) - light.image.astype(int)).max(2) < 12
    return same, dark.labels


def test_card_ink_lies_inside_its_quad_and_fills_it():
    rng = np.random.default_rng(5)
    deck = ProceduralDeck(3)
    codes = ["QS", "10H", "AD", "7C", "JK"]
    cards = [
        Placed(
            deck.face(c), (float(i * 90), float(rng.uniform(-20, 20))), float(rng.uniform(0, 360))
        )
        for i, c in enumerate(codes)
    ]
    covered, labels = _covered(plain_spec(cards, tilt=30, yaw=20))
    quads = [lab.corners for lab in labels]
    outside = covered & ~_mask_of_quads(quads, 1)
    assert outside.sum() == 0, f"{outside.sum()} card pixels outside every card quad"
    for lab in labels:  # each quad is filled by its card (but its rounded corners)
        inner = _mask_of_quads([lab.corners], 0) & ~_edge(lab.corners)
        assert covered[inner].mean() > 0.98, lab.code
        assert lab.visible == pytest.approx(1.0, abs=0.02)


def _edge(q) -> np.ndarray:
    m = np.zeros(SIZE[::-1], np.uint8)
    cv2.polylines(m, [np.round(q).astype(np.int32)], True, 255, 7)
    return m > 0


def test_random_scene_card_pixels_lie_inside_card_quads():
    for i in range(3):
        spec = random_scene(11, i, layouts=("scatter", "sten", "skipbo"), size=SIZE).spec
        spec.lighting, spec.effects, spec.occluders = Lighting(), Effects(), []
        spec.camera.k1 = 0.0
        covered, labels = _covered(spec)
        union = _mask_of_quads([lab.corners for lab in labels], 1)
        assert covered.sum() > 500
        assert not (covered & ~union).any()
        # and the visible fractions agree with the pixels left of each card
        total = sum(lab.visible for lab in labels)
        assert total > 0


def test_visible_fraction_of_a_half_covered_card_matches_geometry():
    deck = ProceduralDeck(1)
    w, h = deck.face("9H").size_mm
    bottom = Placed(deck.face("9H"), (0.0, 0.0), 0.0)
    top = Placed(deck.face("KS"), (w / 2, 0.0), 0.0)
    scene = render(plain_spec([bottom, top]))
    b, t = scene.labels
    # the top card covers the right half of the bottom one; rounded corners shift it a little
    assert b.visible == pytest.approx(0.5, abs=0.03)
    assert t.visible == pytest.approx(1.0, abs=0.02)
    assert b.index_visible[0] == pytest.approx(1.0, abs=0.05)  # top-left index shows
    assert b.index_visible[1] < 0.02  # bottom-right index is under the king
    # a quarter: shifted by half the width and half the height
    top2 = Placed(deck.face("KS"), (w / 2, h / 2), 0.0)
    b2 = render(plain_spec([bottom, top2])).labels[0]
    assert b2.visible == pytest.approx(0.75, abs=0.03)


def test_labels_follow_the_card_orientation():
    deck = ProceduralDeck(2)
    card = Placed(deck.face("5D"), (0.0, 0.0), 180.0)  # upside down on the table
    lab = render(plain_spec([card])).labels[0]
    # the card's own top-left is now at the bottom right of the picture
    assert lab.corners[0, 0] > lab.corners[2, 0] and lab.corners[0, 1] > lab.corners[2, 1]
    assert lab.index_corners[0].mean(0)[1] > lab.index_corners[1].mean(0)[1]


def test_same_seed_gives_identical_labels(tmp_path):
    outs = []
    for k, workers in enumerate((1, 2)):
        cfg = BuildConfig(tmp_path / f"b{k}", 4, seed=9, size=SIZE, workers=workers, progress=False)
        build(cfg)
        outs.append(cfg.out)
    files = sorted(
        p.relative_to(outs[0]) for p in outs[0].rglob("*") if p.suffix in (".txt", ".json")
    )
    assert len(files) == 8
    for f in files:
        assert (outs[0] / f).read_bytes() == (outs[1] / f).read_bytes(), f
    imgs = sorted(outs[0].rglob("*.jpg"))
    assert all(p.read_bytes() == (outs[1] / p.relative_to(outs[0])).read_bytes() for p in imgs)
    other = random_scene(10, 0, size=SIZE)
    assert json.dumps(other.truth()) != json.dumps(random_scene(9, 0, size=SIZE).truth())


def test_every_code_appears_in_a_modest_build():
    seen: set[str] = set()
    for i in range(60):
        scene = random_scene(2, i, layouts=("scatter", "skipbo", "road"), size=(320, 180))
        for line in yolo_lines(scene, "codes", min_card_visible=0.0):
            seen.add(class_names("codes")[int(line.split()[0])])
    assert set(all_codes()) - seen == set()


def test_yolo_boxes_are_normalised_and_clipped():
    scene = random_scene(4, 3, size=SIZE)
    lines = yolo_lines(scene, "cards+corners")
    assert lines
    for line in lines:
        cls, cx, cy, w, h = line.split()
        assert cls in ("0", "1")
        cx, cy, w, h = map(float, (cx, cy, w, h))
        assert (
            0 <= cx - w / 2 + 1e-6
            and cx + w / 2 <= 1 + 1e-6
            and 0 <= cy - h / 2 + 1e-6
            and cy + h / 2 <= 1 + 1e-6
        )


def test_oriented_boxes_follow_the_card_corners():
    scene = random_scene(4, 3, size=SIZE)
    lines = yolo_lines(scene, "cards", obb=True)
    cards = [lab for lab in scene.labels if lab.face_up and lab.visible >= 0.3]
    assert len(lines) == len([c for c in cards if c.box(SIZE) is not None]) > 0
    first = next(c for c in cards if c.box(SIZE) is not None)
    pts = np.array(lines[0].split()[1:], float).reshape(4, 2)
    assert ((0 <= pts) & (pts <= 1)).all()
    inside = (first.corners >= 0).all(1) & (first.corners <= SIZE).all(1)
    assert np.allclose(pts[inside] * SIZE, first.corners[inside], atol=0.01)


def test_corner_crop_is_deterministic_and_shaped():
    face = face_for("QS", style=4)
    a = corner_crop(face, 0, (48, 80), np.random.default_rng(3))
    b = corner_crop(face, 0, (48, 80), np.random.default_rng(3))
    assert a.shape == (80, 48, 3) and np.array_equal(a, b)
    clean = corner_crop(face, 1)  # the bottom-right index, turned upright, holds dark ink
    assert clean.shape == (80, 48, 3) and clean.min() < 100
    assert face_for("SB7").code == "SB7" and face_for("JK", style=3).index_quads.shape == (2, 4, 2)


def test_every_code_has_a_procedural_face_with_index_quads_inside():
    for code in all_codes():
        face = face_for(code, style=7)
        q = face.index_quads
        assert q.shape == (2, 4, 2)
        assert (
            (q >= -1).all()
            and (q[..., 0] <= face.width + 1).all()
            and (q[..., 1] <= face.height + 1).all()
        )
        assert q[0].max(0)[1] < face.height * 0.45  # the top-left index is in the top part
    assert SkipBoDeck(0).back().code is None and ProceduralDeck(0).back().index_quads.shape == (
        0,
        4,
        2,
    )


def test_bad_deck_dir_names_missing_and_unreadable_cards(tmp_path, capsys):
    src = ProceduralDeck(0)
    for code in ("AS", "2S", "3S"):
        cv2.imwrite(str(tmp_path / f"{code}.png"), src.face(code).image)
    (tmp_path / "4S.png").write_bytes(b"not a png")
    with pytest.raises(DeckError) as e:
        ImageDeck(tmp_path)
    msg = str(e.value)
    assert "missing 48 of the 52" in msg and "10H" in msg and "4S.png" in msg
    assert (
        main(
            [
                "dataset",
                "build",
                "--out",
                str(tmp_path / "o"),
                "--images",
                "1",
                "--deck-dir",
                str(tmp_path),
            ]
        )
        == 2
    )
    assert "4S.png" in capsys.readouterr().err
    with pytest.raises(DeckError, match="does not exist"):
        ImageDeck(tmp_path / "nope")


def test_a_decks_jokers_and_backs_are_the_files_their_names_begin_with(tmp_path):
    """JK2.png was neither a joker (the pattern asked for JK-…) nor a card: left out unsaid."""
    src = ProceduralDeck(0)
    for code in STANDARD_CODES:
        cv2.imwrite(str(tmp_path / f"{code}.png"), src.face(code).image)
    for name in ("JK.png", "JK2.png", "jk-red.png", "BACKblue.png", "BACK-red.png"):
        cv2.imwrite(str(tmp_path / name), src.face("AS").image)
    deck = ImageDeck(tmp_path)
    assert [f.name for f in deck.joker_files] == ["JK.png", "JK2.png", "jk-red.png"]
    assert [f.name for f in deck.back_files] == ["BACK-red.png", "BACKblue.png"]


def test_a_pipe_among_a_decks_cards_is_unreadable_not_waited_on(tmp_path, make_pipe):
    """A named pipe called 5S.png was read as whatever a writer sent it, or waited on for
    ever (here its writer sends a whole card)."""
    src = ProceduralDeck(0)
    for code in ("AS", "2S", "3S"):
        cv2.imwrite(str(tmp_path / f"{code}.png"), src.face(code).image)
    pipe = make_pipe("4S.png", cv2.imencode(".png", src.face("4S").image)[1].tobytes())
    with pytest.raises(DeckError) as e:
        ImageDeck(tmp_path)
    assert "unreadable images: 4S.png" in str(e.value) and not make_pipe.waited[pipe]


def test_cli_rejects_bad_size_and_unwritable_output(tmp_path, capsys):
    (tmp_path / "c.yaml").write_text("size: 12x\n")
    argv = ["dataset", "build", "--out", str(tmp_path), "--images", "1"]
    assert main([*argv, "--config", str(tmp_path / "c.yaml")]) == 2
    assert "size: expected WIDTHxHEIGHT, each a whole number 64–8192" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert (
        main(["dataset", "build", "--out", str(blocker / "sub"), "--images", "1", "--quiet"]) == 2
    )
    assert "is a file, not a folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("seed: abc", "seed must be a whole number, not 'abc'"),
        ("seed: 1.5", "seed must be a whole number, not 1.5"),
        ("seed:", "seed must be a whole number, not None"),
        ("images: true", "images must be a whole number, not True"),
        ("out: 5", "out must be a folder's path, not 5"),
        ("out: [a]", "out must be a folder's path, not ['a']"),
        ("deck_dirs: 5", "deck_dirs must be a list of deck folders, not 5"),
        ("deck_dirs: abc", "deck_dirs must be a list of deck folders, not 'abc'"),
        ("deck_dirs: [1]", "deck_dirs must be a list of deck folders, not [1]"),
        ("obb: maybe", "obb must be true or false, not 'maybe'"),
        ("val_fraction: yes", "val_fraction must be a number in [0, 1], not True"),
    ],
)
def test_a_config_value_of_the_wrong_kind_is_named(tmp_path, capsys, line, says):
    config = tmp_path / "c.yaml"
    assert (
        _build_error(config, capsys, f"layouts: hand\n{line}") == f"config {str(config)!r}: {says}"
    )
    assert not (tmp_path / "o").exists()


def _build_error(config: Path, capsys, lines: str) -> str:
    """Return the one-line error of ``dataset build`` with a config of ``lines`` (and a small
    scene's out, images and size), which must fail."""
    config.write_text(f"out: {config.parent / 'o'}\nimages: 1\nsize: 64x64\n{lines}\n")
    assert main(["dataset", "build", "--config", str(config), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kortbord dataset: ") and err.count("\n") == 1
    return err.removeprefix("kortbord dataset: ").rstrip("\n")


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"a: [\n", "is not valid YAML: line 2, column 1: expected the node content"),
        (b"images: 1\n  out: x\n", "is not valid YAML: line 2, column 6: mapping values are not"),
        (b"\xff\xfe\x00\x00", "is not text (UTF-8)"),
    ],
)
def test_a_config_that_cannot_be_read_is_named_on_one_line(tmp_path, capsys, data, says):
    config = tmp_path / "c.yaml"
    config.write_bytes(data)
    assert main(["dataset", "build", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kortbord dataset: config {str(config)!r} {says}")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("weights", "says"),
    [
        ("{road: x}", "layout weights must be numbers, non-negative and not all zero"),
        ("{road: null}", "layout weights must be numbers, non-negative and not all zero"),
        ("{road: .nan}", "layout weights must be numbers, non-negative and not all zero"),
        ("{road: .inf}", "layout weights must be numbers, non-negative and not all zero"),
        ("{road: true}", "layout weights must be numbers, non-negative and not all zero"),
        ("{1: 2}", "unknown layout(s) 1"),
    ],
)
def test_a_configs_bad_layout_weight_is_named(tmp_path, capsys, weights, says):
    assert _build_error(tmp_path / "c.yaml", capsys, f"layouts: {weights}").startswith(says)


def test_preview_given_a_folder_for_its_picture_names_it(tmp_path, capsys):
    """``dataset preview --out sheet.jpg`` where sheet.jpg is a folder said "cannot write
    'sheet.jpg'" and no more, after drawing every scene."""
    (tmp_path / "sheet.jpg").mkdir()
    argv = ["dataset", "preview", "--out", str(tmp_path / "sheet.jpg"), "--size", "64x64"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert (
        err == f"kortbord dataset: --out '{tmp_path}/sheet.jpg' is a folder, not a picture's name\n"
    )


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("seed: -1", "seed: expected a whole number 0 or more, not -1"),
        ("images: 0", "images: expected a whole number 1 or more, not 0"),
        ("val_fraction: 1.5", "val_fraction: expected a number 0–1, not 1.5"),
        ("size: 64x9000", "size: expected WIDTHxHEIGHT, each a whole number 64–8192, e.g. "),
    ],
)
def test_a_configs_number_out_of_range_is_named_as_the_options_are(tmp_path, capsys, line, says):
    """The options' own limits (tests/kortbord/test_cli.py), said for the config's key."""
    config = tmp_path / "c.yaml"
    assert _build_error(config, capsys, line).startswith(f"config {str(config)!r}: {says}")
    assert not (tmp_path / "o").exists()


def test_cli_build_writes_yolo_dataset(tmp_path, capsys):
    out = tmp_path / "ds"
    rc = main(
        [
            "dataset",
            "build",
            "--out",
            str(out),
            "--images",
            "3",
            "--seed",
            "1",
            "--size",
            "320x180",
            "--targets",
            "codes",
            "--val-fraction",
            "0.34",
            "--quiet",
        ]
    )
    assert rc == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["images"] == 3 and summary["val"] >= 1
    text = (out / "data.yaml").read_text()
    assert f"nc: {len(all_codes())}" in text and '0: "AS"' in text and '65: "SBW"' in text
    assert len(list(out.rglob("*.jpg"))) == 3 and len(list((out / "truth").rglob("*.json"))) == 3


@pytest.mark.skipif(not DECKS.is_dir(), reason=f"shared decks not found at {DECKS}")
def test_shared_decks_load_with_index_corners():
    for d in sorted(p for p in DECKS.iterdir() if p.is_dir()):
        deck = ImageDeck(d)
        assert len([c for c in deck.codes if c != "JK"]) == 52, d.name
        q = deck.index_quads[0]  # fractions of the card
        assert 0 <= q[:, 0].min() and q[:, 0].max() < 0.35, (d.name, q)
        assert 0 <= q[:, 1].min() and q[:, 1].max() < 0.4, (d.name, q)
        assert deck.face("QS").image.shape[2] == 4


def test_labels_follow_lens_distortion():
    deck = ProceduralDeck(6)
    card = Placed(deck.face("8C"), (0.0, 0.0), 10.0)
    spec = plain_spec([card])
    # move the card towards the picture's corner, where barrel distortion moves it most
    spec.camera.H = np.array([[1, 0, 240], [0, 1, 130], [0, 0, 1]], float) @ spec.camera.H
    spec.camera.k1 = 0.12
    covered, labels = _covered(spec)
    ys, xs = np.nonzero(covered)
    seen = np.array([xs.mean() + 0.5, ys.mean() + 0.5])
    assert np.linalg.norm(labels[0].corners.mean(0) - seen) < 1.5
    spec.camera.k1 = 0.0
    undistorted = render(spec).labels[0].corners.mean(0)
    assert np.linalg.norm(undistorted - seen) > 4  # the distortion is real, and followed


def test_occluders_hide_cards_in_the_visible_fraction():
    deck = ProceduralDeck(8)
    spec = plain_spec([Placed(deck.face("4H"), (0.0, 0.0), 0.0)])
    alone = render(spec).labels[0]
    spec.occluders = [
        Occluder("chip", {"center": [0.0, 0.0], "radius": 15.0, "colour": [40, 40, 200]})
    ]
    covered = render(spec).labels[0]
    w, h = deck.face("4H").size_mm
    chip = np.pi * 15.0**2 / (w * h * deck.face("4H").alpha_fraction)
    assert alone.visible == pytest.approx(1.0, abs=0.02)
    assert covered.visible == pytest.approx(1.0 - chip, abs=0.03)


@pytest.mark.skipif(not DECKS.is_dir(), reason=f"shared decks not found at {DECKS}")
def test_two_workers_with_a_real_deck_finish(tmp_path):
    # A forked worker used to hang in OpenCV after the parent had loaded an image deck.
    deck = next(p for p in sorted(DECKS.iterdir()) if p.is_dir())
    cmd = [sys.executable, "-m", "kortbord", "dataset", "build", "--out", str(tmp_path / "d")]
    cmd += ["--images", "4", "--size", "320x180", "--deck-dir", str(deck), "--real-fraction", "1"]
    cmd += ["--workers", "2", "--quiet"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["images"] == 4
    assert len(list((tmp_path / "d" / "images").rglob("*.jpg"))) == 4
