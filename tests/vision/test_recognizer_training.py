"""Training data for the recognizer: detector labels from generated scenes, classifier crops,
the order-free pose loss and the outline refiner (those two only where the train extra is
installed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.crops import CropSpec
from vision.geometry import order_clockwise, quad_is_sane
from vision.recognizer import CLASS_NAMES


def test_pose_labels_match_the_generator_cards():
    from vision.train.detector import pose_lines, render_labelled, wanted

    scene, boxes = render_labelled(seed=3, index=2, deck_dirs=(), size=(640, 360))
    lines = pose_lines(scene, boxes)
    targets = [(lab, b) for lab, b in zip(scene.labels, boxes, strict=True) if wanted(lab, b)]
    assert lines and len(lines) <= len(targets)
    for line in lines:
        v = np.array(line.split(), float)
        assert v.shape == (17,) and v[0] == 0
        kp = v[5:].reshape(4, 3)
        coords = np.concatenate([v[1:5], kp[:, :2].ravel()])
        assert (coords >= 0).all() and (coords <= 1).all()
        assert set(kp[:, 2]) <= {0.0, 2.0}
    # Every labelled box is the visible part of a face-up card, inside that card's outline box.
    for lab, box in targets:
        q = lab.corners
        assert lab.code is not None
        assert box[0] >= q[:, 0].min() - 3 and box[2] <= q[:, 0].max() + 3
        assert box[1] >= q[:, 1].min() - 3 and box[3] <= q[:, 1].max() + 3


def test_visible_box_of_a_covered_card_is_smaller_than_its_outline():
    from vision.train.detector import render_labelled

    for index in range(12):
        scene, boxes = render_labelled(seed=5, index=index, deck_dirs=(), size=(640, 360))
        covered = [
            (lab, b)
            for lab, b in zip(scene.labels, boxes, strict=True)
            if lab.code is not None and 0.05 < lab.visible < 0.5 and np.isfinite(b).all()
        ]
        if covered:
            break
    else:
        pytest.skip("no partly covered card in the first scenes")
    lab, box = covered[0]
    q = lab.corners
    outline = (q[:, 0].max() - q[:, 0].min()) * (q[:, 1].max() - q[:, 1].min())
    assert (box[2] - box[0]) * (box[3] - box[1]) < outline


def test_crop_sampler_gives_crops_of_the_run_time_size_and_every_kind_of_label():
    from vision.train.crops import BG, CropSampler, SamplerConfig

    sampler = CropSampler(SamplerConfig(style_ids=(0, 1), skipbo_ids=(0,)))
    rng = np.random.default_rng(0)
    samples = [sampler.sample(rng) for _ in range(40)]
    spec = CropSpec()
    labels = [y for _, y in samples]
    assert all(
        c.shape == (spec.size[1], spec.size[0], 3) and c.dtype == np.uint8 for c, _ in samples
    )
    assert all(0 <= y < len(CLASS_NAMES) for y in labels)
    assert BG in labels and any(y != BG for y in labels)
    # Same seed, same samples.
    again = CropSampler(SamplerConfig(style_ids=(0, 1), skipbo_ids=(0,)))
    rng2 = np.random.default_rng(0)
    c0, y0 = again.sample(rng2)
    assert y0 == samples[0][1] and np.array_equal(c0, samples[0][0])


def test_cyclic_pose_loss_does_not_care_which_corner_comes_first():
    torch = pytest.importorskip("torch", reason="needs the train extra (torch)")
    pytest.importorskip("ultralytics", reason="needs the train extra (ultralytics)")
    from vision.train.detector import CyclicPoseLoss

    class Stub:  # the parts of v8PoseLoss that calculate_keypoints_loss uses
        pass

    from ultralytics.utils.loss import KeypointLoss

    stub = Stub()
    stub.keypoint_loss = KeypointLoss(torch.ones(4) / 4)
    stub.bce_pose = torch.nn.BCEWithLogitsLoss()
    corners = torch.tensor([[10.0, 10.0], [20.0, 10.0], [20.0, 24.0], [10.0, 24.0]])
    pred = torch.cat([corners + 0.3, torch.full((4, 1), 5.0)], 1)[None, None]  # (1, 1 anchor, 4, 3)
    masks = torch.ones(1, 1, dtype=torch.bool)
    gt_idx = torch.zeros(1, 1, dtype=torch.long)
    stride = torch.ones(1, 1)
    losses = []
    for shift in range(4):
        gt = torch.cat([corners.roll(shift, 0), torch.full((4, 1), 2.0)], 1)[
            None, None
        ]  # (1, 1, 4, 3)
        box = torch.tensor([[[10.0, 10.0, 20.0, 24.0]]])
        loss, _ = CyclicPoseLoss.calculate_keypoints_loss(
            stub, masks, gt_idx, gt, stride, box, pred.clone()
        )
        losses.append(float(loss))
    assert max(losses) - min(losses) < 1e-6
    assert losses[0] < 0.05


def test_a_card_without_known_corners_teaches_neither_corners_nor_their_visibility():
    torch = pytest.importorskip("torch", reason="needs the train extra (torch)")
    pytest.importorskip("ultralytics", reason="needs the train extra (ultralytics)")
    from ultralytics.utils.loss import KeypointLoss

    from vision.train.detector import CyclicPoseLoss

    class Stub:
        pass

    stub = Stub()
    stub.keypoint_loss = KeypointLoss(torch.ones(4) / 4)
    stub.bce_pose = torch.nn.BCEWithLogitsLoss()
    pred = torch.cat([torch.rand(4, 2) * 30, torch.full((4, 1), 5.0)], 1)[None, None]
    args = (torch.ones(1, 1, dtype=torch.bool), torch.zeros(1, 1, dtype=torch.long))
    box = torch.tensor([[[10.0, 10.0, 20.0, 24.0]]])
    unknown = torch.zeros(1, 1, 4, 3)  # a real photo's card: a box, corners "0 0 0"
    loss, obj = CyclicPoseLoss.calculate_keypoints_loss(
        stub, *args, unknown, torch.ones(1, 1), box.clone(), pred.clone()
    )
    assert float(loss) == 0.0 and float(obj) == 0.0
    known = torch.cat([torch.rand(4, 2) * 30, torch.full((4, 1), 2.0)], 1)[None, None]
    loss, obj = CyclicPoseLoss.calculate_keypoints_loss(
        stub, *args, known, torch.ones(1, 1), box.clone(), pred.clone()
    )
    assert float(loss) > 0.0 and float(obj) > 0.0


def _real_train_set(root, photos: dict[str, bytes]):
    """Write ``root/photos/train``: per file name its bytes and a VOC annotation of one king
    at x 8..48, y 10..70; and ``root/data/data.yaml``, a pose dataset. Return the yaml."""
    folder = root / "photos" / "train"
    folder.mkdir(parents=True)
    for name, data in photos.items():
        (folder / name).write_bytes(data)
        (folder / name).with_suffix(".xml").write_text(
            f"<annotation><filename>{name}</filename><object><name>king</name><bndbox>"
            "<xmin>8</xmin><ymin>10</ymin><xmax>48</xmax><ymax>70</ymax></bndbox></object>"
            "</annotation>"
        )
    data = root / "data"
    (data / "images" / "train").mkdir(parents=True)
    yaml = data / "data.yaml"
    yaml.write_text(f"path: {data}\ntrain: images/train\nval: images/val\n")
    return yaml


def test_real_photos_join_the_detector_training_set_with_boxes_and_unknown_corners(tmp_path):
    import cv2

    from vision.train.detector import REAL_SPLIT, add_real_boxes

    photo = np.full((100, 80, 3), 90, np.uint8)
    photo[10:70, 8:48] = 255  # the card: x 8..48, y 10..70
    yaml = _real_train_set(tmp_path, {"a.png": cv2.imencode(".png", photo)[1].tobytes()})
    data = yaml.parent
    assert add_real_boxes(yaml, tmp_path / "photos", log=lambda *_: None) == 4
    assert add_real_boxes(yaml, tmp_path / "photos", turns=(0, 90), log=lambda *_: None) == 2
    assert add_real_boxes(yaml, tmp_path / "photos", log=lambda *_: None) == 4
    assert f"train: [images/train, images/{REAL_SPLIT}]" in yaml.read_text()
    names = sorted(p.stem for p in (data / "images" / REAL_SPLIT).iterdir())
    assert names == ["a_0", "a_180", "a_270", "a_90"]
    for name in names:
        # Each turned photo's label box is where its card lies.
        image = cv2.imread(str(data / "images" / REAL_SPLIT / f"{name}.jpg"), cv2.IMREAD_GRAYSCALE)
        h, w = image.shape
        line = (data / "labels" / REAL_SPLIT / f"{name}.txt").read_text().split()
        assert line[0] == "0" and line[5:] == ["0"] * 12  # one class; corners unknown
        cx, cy, bw, bh = (float(v) for v in line[1:5])
        ys, xs = np.nonzero(image > 200)
        assert cx * w == pytest.approx((xs.min() + xs.max() + 1) / 2, abs=1)
        assert cy * h == pytest.approx((ys.min() + ys.max() + 1) / 2, abs=1)
        assert (bw * w, bh * h) == pytest.approx((np.ptp(xs) + 1, np.ptp(ys) + 1), abs=1.5)
    assert (h, w) == (80, 100)  # the last, a_90, lies on its side


def test_real_photos_of_upright_cards_join_turned_by_other_angles_with_true_boxes(tmp_path):
    """A box turned by other than a quarter turn is the box of the turned box: true for a card
    lying upright, so such a photo is also taught at other angles (seeded); a photo whose box
    is square enough to hold a card lying at an angle is not."""
    import cv2

    from vision.train.detector import REAL_SPLIT, add_real_boxes

    photo = np.full((100, 80, 3), 90, np.uint8)
    photo[10:70, 8:48] = 255  # the card: x 8..48, y 10..70
    yaml = _real_train_set(tmp_path, {"a.png": cv2.imencode(".png", photo)[1].tobytes()})
    folder = yaml.parent / "images" / REAL_SPLIT
    quiet = {"turns": (0,), "log": lambda *_: None}
    assert add_real_boxes(yaml, tmp_path / "photos", angles=2, seed=4, **quiet) == 3
    other = sorted(p.stem for p in folder.iterdir())
    assert add_real_boxes(yaml, tmp_path / "photos", angles=2, seed=3, **quiet) == 3
    names = sorted(p.stem for p in folder.iterdir())
    assert names != other  # the seed chooses the angles ...
    assert add_real_boxes(yaml, tmp_path / "photos", angles=2, seed=3, **quiet) == 3
    assert sorted(p.stem for p in folder.iterdir()) == names  # ... the same each time
    angled = [n for n in names if n != "a_0"]
    assert len(angled) == 2
    for name in angled:
        degrees = float(name.removeprefix("a_").replace("p", "."))
        assert 10 <= degrees % 90 <= 80  # not near a quarter turn
        image = cv2.imread(str(folder / f"{name}.jpg"), cv2.IMREAD_GRAYSCALE)
        h, w = image.shape
        line = (yaml.parent / "labels" / REAL_SPLIT / f"{name}.txt").read_text().split()
        cx, cy, bw, bh = (float(v) for v in line[1:5])
        ys, xs = np.nonzero(image > 200)  # the turned card
        assert cx * w == pytest.approx((xs.min() + xs.max() + 1) / 2, abs=1.5)
        assert cy * h == pytest.approx((ys.min() + ys.max() + 1) / 2, abs=1.5)
        assert (bw * w, bh * h) == pytest.approx((np.ptp(xs) + 1, np.ptp(ys) + 1), abs=2.5)

    # A square box: a card lying at an angle may fill it, and turned its box would be too big.
    square = tmp_path / "square"
    yaml = _real_train_set(square, {"b.png": cv2.imencode(".png", photo)[1].tobytes()})
    xml = square / "photos" / "train" / "b.xml"
    xml.write_text(xml.read_text().replace("<xmax>48</xmax>", "<xmax>62</xmax>"))
    assert add_real_boxes(yaml, square / "photos", angles=2, **quiet) == 1


def test_a_cut_off_real_photo_stays_out_of_the_detector_training_set_and_is_named(tmp_path):
    """OpenCV read it grey where its bytes were missing: its card, boxed as labelled, was
    taught on a grey picture."""
    import cv2

    from vision.train.detector import REAL_SPLIT, add_real_boxes

    noise = np.random.default_rng(0).integers(0, 256, (100, 80, 3), np.uint8)
    data = cv2.imencode(".jpg", noise)[1].tobytes()
    yaml = _real_train_set(tmp_path, {"a.jpg": data, "b.jpg": data[: len(data) // 2]})
    said: list[str] = []
    assert add_real_boxes(yaml, tmp_path / "photos", turns=(0,), log=said.append) == 1
    assert [p.stem for p in (yaml.parent / "images" / REAL_SPLIT).iterdir()] == ["a_0"]
    bad = tmp_path / "photos" / "train" / "b.jpg"
    assert said[0].startswith(f"real photos: skipped {bad}: the file is cut off")


def test_a_cut_off_real_photo_stays_out_of_the_classifiers_real_crops_and_is_named(
    tmp_path, monkeypatch
):
    """The classifier's real cards and backgrounds were cut from photos read with a bare
    cv2.imread: a cut-off photo came in grey where its bytes were missing."""
    pytest.importorskip("torch", reason="needs the train extra (torch)")
    import cv2

    import vision.train.real_crops as real_crops
    from vision.train.classifier import ClassifierConfig, _real_batches

    noise = np.random.default_rng(0).integers(0, 256, (100, 80, 3), np.uint8)
    data = cv2.imencode(".jpg", noise)[1].tobytes()
    _real_train_set(tmp_path, {"a.jpg": data, "b.jpg": data[: len(data) // 2], "c.jpg": data})
    seen: dict[str, list] = {}

    def find_real_cards(photos, recognizer):
        seen["read"] = [(p.image.name, frame.shape) for p, frame in photos]
        return [real_crops.RealCard(Path("a.jpg"), np.zeros((4, 2), np.float32), (0,))]

    class Stream:
        def __init__(self, cards, seed, photos=()):
            seen["backgrounds"] = [p.image.name for p in photos]

        def __iter__(self):
            yield from ()

    monkeypatch.setattr(real_crops, "find_real_cards", find_real_cards)
    monkeypatch.setattr(real_crops, "RealCornerStream", Stream)
    said: list[str] = []
    config = ClassifierConfig(out=str(tmp_path / "run"), real_photos=str(tmp_path / "photos"))
    _real_batches(config, 0, log=said.append)
    assert seen == {
        "read": [("a.jpg", (100, 80, 3)), ("c.jpg", (100, 80, 3))],
        "backgrounds": ["a.jpg", "c.jpg"],
    }
    bad = tmp_path / "photos" / "train" / "b.jpg"
    assert said[0].startswith(f"classifier: real photos: skipped {bad}: the file is cut off")


# Ultralytics asks DNS whether it is online as it loads (one.one.one.one, dns.google) unless
# YOLO_OFFLINE is set; this runs `kortbord train` in a fresh process whose DNS refuses and tells.
OFFLINE_TRAIN = """
import socket, sys
asked = []
def refuse(host, *args, **kwargs):
    asked.append(host)
    raise socket.gaierror(socket.EAI_NONAME, "this test is offline")
socket.getaddrinfo = refuse
from kortbord.cli import main
rc = main(["train", "--only", "package", "--out", sys.argv[1]])
print(rc, asked)
"""


def test_kortbord_train_asks_no_network_whether_it_is_online(tmp_path):
    pytest.importorskip("torch", reason="needs the train extra (torch)")
    pytest.importorskip("ultralytics", reason="needs the train extra (ultralytics)")
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("YOLO_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(root), env.get("PYTHONPATH"))))
    run = subprocess.run(
        [sys.executable, "-c", OFFLINE_TRAIN, str(tmp_path / "run")],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )
    # The package stage of an empty folder names what is missing (exit 2), having asked nothing.
    assert run.stdout.splitlines()[-1] == "2 []", run.stdout + run.stderr
    assert "card_detector.onnx is missing" in run.stderr


def test_the_detector_trainer_fetches_no_font(tmp_path, monkeypatch):
    """Ultralytics' dataset check fetches Arial.ttf (for plots, which are off) from the net
    wherever the machine lacks it, YOLO_OFFLINE or not."""
    pytest.importorskip("torch", reason="needs the train extra (torch)")
    pytest.importorskip("ultralytics", reason="needs the train extra (ultralytics)")
    import socket

    import ultralytics.utils.checks as checks
    from matplotlib import font_manager

    from vision.train import detector

    asked: list[str] = []

    def refuse(host, *args, **kwargs):
        asked.append(host)
        raise socket.gaierror(socket.EAI_NONAME, "this test is offline")

    class Stop(Exception):
        pass

    def stop(trainer):
        raise Stop

    # A machine without the font: none kept from before, none among the system's fonts.
    monkeypatch.setattr(checks, "USER_CONFIG_DIR", tmp_path / "config")
    monkeypatch.setattr(font_manager.fontManager, "ttflist", [])
    checks.check_font.__wrapped__.cache_clear()
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(detector.CardPoseTrainer, "train", stop)  # set up, then stop
    data = detector.build_pose_dataset(
        tmp_path / "data", 1, size=(320, 180), val_images=1, log=lambda *_: None
    )
    cfg = detector.DetectorConfig(out=str(tmp_path / "out"), data=str(data), imgsz=64, workers=0)
    with pytest.raises(Stop):
        detector.train_detector(cfg, log=lambda *_: None)
    assert asked == []


def test_the_train_extra_keeps_the_opencv_the_networks_learnt():
    """Ultralytics brings its own OpenCV package, which writes the same cv2: it must stay in the
    run-time's range (5.1 draws the generator's glyphs otherwise)."""
    pytest.importorskip("ultralytics", reason="needs the train extra (ultralytics)")
    import tomllib
    from importlib.metadata import PackageNotFoundError, version

    import cv2
    from packaging.requirements import Requirement

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    (wanted,) = (
        r
        for r in map(Requirement, project["project"]["dependencies"])
        if r.name == "opencv-python-headless"
    )
    assert cv2.__version__ in wanted.specifier
    for dist in ("opencv-python", "opencv-python-headless"):
        try:
            assert version(dist) in wanted.specifier, dist
        except PackageNotFoundError:
            pass


def test_refiner_disturbs_outlines_like_the_detector_and_knows_which_corner_is_which():
    pytest.importorskip("torch", reason="needs the train extra (torch)")
    from vision.train.refiner import align, card_width, corner_error, disturb

    rng = np.random.default_rng(1)
    truth = order_clockwise(np.array([[100, 100], [160, 100], [160, 190], [100, 190]], np.float32))
    errors = []
    for k in range(300):
        rough = np.roll(disturb(truth, rng), -(k % 4), axis=0)
        assert quad_is_sane(rough, 3.0)
        aligned = align(rough, truth)
        assert np.allclose(np.roll(aligned, k % 4, axis=0), truth)  # the roll undone
        errors.append(corner_error(rough[None], aligned[None])[0])
    assert card_width(truth) == pytest.approx(60)
    # About as rough as the shipped detector's corners (median a quarter of a card width).
    assert 0.15 < float(np.median(errors)) < 0.45


def test_refiner_trains_resumes_and_exports_a_working_onnx(tmp_path):
    pytest.importorskip("torch", reason="needs the train extra (torch)")
    import onnxruntime as ort

    from vision.synth.dataset import BuildConfig, build
    from vision.train.refiner import RefinerConfig, train_refiner

    build(
        BuildConfig(tmp_path / "data", 3, seed=2, size=(320, 180), targets="cards", progress=False)
    )
    cfg = RefinerConfig(
        data=str(tmp_path / "data"), out=str(tmp_path / "out"), steps=3, batch=4, workers=0
    )
    onnx_path = train_refiner(cfg, log=lambda *_: None)
    assert (tmp_path / "out" / "refiner_last.pt").is_file()
    cfg.steps = 5  # a second run resumes at step 3
    lines: list[str] = []
    train_refiner(cfg, log=lines.append)
    assert any("resuming at step 3" in line for line in lines)
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {"patches": np.zeros((2, 3, 96, 96), np.float32)})
    assert out.shape == (2, 8) and np.isfinite(out).all()


def test_the_whole_card_reader_trains_on_thumbnails_and_the_recognizer_uses_it(tmp_path):
    pytest.importorskip("torch", reason="needs the train extra (torch)")
    import shutil

    from vision.crops import THUMB_SPEC
    from vision.recognizer import MODEL_DIR, THUMBS_FILE, Recognizer, models_present
    from vision.train.classifier import ClassifierConfig, train_classifier
    from vision.train.crops import CropSampler, SamplerConfig

    # The thumbnail sampler shows whole cards of the small sizes the reader is for.
    crop, _ = CropSampler(SamplerConfig(width_px=(30, 40)), THUMB_SPEC).sample(
        np.random.default_rng(3)
    )
    assert crop.shape == (THUMB_SPEC.size[1], THUMB_SPEC.size[0], 3)
    cfg = ClassifierConfig(
        out=str(tmp_path / "thumbs"),
        steps=2,
        batch=8,
        workers=0,
        val_size=16,
        spec=THUMB_SPEC,
        width_px=(30.0, 120.0),
        onnx_name=THUMBS_FILE,
    )
    path = train_classifier(cfg, log=lambda *_: None)
    assert path.name == THUMBS_FILE and path.is_file()
    if not models_present():
        pytest.skip("the shipped models are needed for the recognizer half")
    models = tmp_path / "models"
    shutil.copytree(MODEL_DIR, models, ignore=shutil.ignore_patterns("*.pt"))
    shutil.copyfile(path, models / THUMBS_FILE)
    rec = Recognizer(models)
    assert rec.thumbs is not None
    probs = rec.classify_crops(np.zeros((3, 48, 40, 3), np.uint8), rec.thumbs)
    assert probs.shape == (3, len(rec.class_names))
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    small = np.array([[10, 10], [50, 10], [50, 66], [10, 66]], np.float32)
    assert rec._thumb_fits(small, 640, 360) and not rec._thumb_fits(small * 4, 640, 360)


def test_a_partial_label_counts_every_code_the_card_may_be():
    torch = pytest.importorskip("torch", reason="needs the train extra (torch)")
    from vision.train.real_crops import (
        BACKGROUND_CLASSES,
        label_mask,
        partial_label_loss,
        possible_classes,
    )

    any_king = possible_classes("K", "SHDC")
    assert [CLASS_NAMES[c] for c in any_king] == ["KS", "KH", "KD", "KC"]
    assert [CLASS_NAMES[c] for c in possible_classes("A", "HD")] == ["AH", "AD"]
    logits = torch.full((1, len(CLASS_NAMES)), -20.0)
    logits[0, CLASS_NAMES.index("KD")] = 10.0  # sure it is a king, of diamonds

    def loss(classes):
        return partial_label_loss(logits, label_mask(classes)[None]).item()

    assert loss(any_king) < 1e-3  # a king of unknown suit
    assert loss(possible_classes("K", "HD")) < 1e-3  # a red king
    assert loss(possible_classes("K", "S")) > 20  # the king of spades: wrong suit
    assert loss(possible_classes("J", "SHDC")) > 20  # a jack: wrong rank
    assert [CLASS_NAMES[c] for c in BACKGROUND_CLASSES] == ["background"]


def test_a_card_on_a_pile_gets_an_outline_drawn_partly_round_the_card_below():
    pytest.importorskip("torch", reason="needs the train extra (torch)")
    from vision.train.refiner import align, pile_outline

    top = np.array([[100, 100], [160, 100], [160, 190], [100, 190]], np.float32)
    below = np.roll(top + np.array([8, -10], np.float32), 2, axis=0)  # listed from another corner
    rng = np.random.default_rng(0)
    for _ in range(20):
        rough = pile_outline(top, below, rng)
        near_top = np.linalg.norm(rough - top, axis=1) < 4
        near_below = np.linalg.norm(rough - align(top, below), axis=1) < 4
        # Corner k of the rough outline stands for corner k of the top card; some are the lower
        # card's, the others the top card's own.
        assert (near_top | near_below).all()
        assert near_below.any() and near_top.any()


def test_a_cut_off_rendered_scene_is_read_as_none_and_said_once(tmp_path):
    """The refiner and the detector's int8 calibration read the scenes a run rendered with a
    bare cv2.imread: one a stopped run left half-written came in grey where it was cut."""
    import cv2

    from vision.train.loop import read_scene

    noise = np.random.default_rng(1).integers(0, 256, (60, 90, 3), np.uint8)
    data = cv2.imencode(".jpg", noise)[1].tobytes()
    (tmp_path / "whole.jpg").write_bytes(data)
    (tmp_path / "cut.jpg").write_bytes(data[: len(data) // 2])
    said: list[str] = []
    skipped: set[Path] = set()
    assert read_scene(tmp_path / "whole.jpg", skipped, said.append).shape == (60, 90, 3)
    assert read_scene(tmp_path / "cut.jpg", skipped, said.append) is None
    assert read_scene(tmp_path / "cut.jpg", skipped, said.append) is None  # an endless stream
    assert len(said) == 1 and said[0].startswith(f"skipped {tmp_path / 'cut.jpg'}: the file is cut")


def test_the_refiners_validation_set_leaves_out_a_cut_off_scene_and_says_so(tmp_path):
    pytest.importorskip("torch", reason="needs the train extra (torch)")
    from vision.synth.dataset import BuildConfig, build
    from vision.train.refiner import scene_cards, validation_set

    build(
        BuildConfig(tmp_path / "data", 24, seed=2, size=(320, 180), targets="cards", progress=False)
    )
    files = sorted((tmp_path / "data" / "truth" / "val").glob("*.json")) or sorted(
        (tmp_path / "data" / "truth" / "train").glob("*.json")
    )
    whole = validation_set(tmp_path / "data", tmp_path / "whole.npz")
    image, cards, _ = scene_cards(files[0])
    assert cards
    data = image.read_bytes()
    image.write_bytes(data[: len(data) // 2])
    said: list[str] = []
    cut = validation_set(tmp_path / "data", tmp_path / "cut.npz", log=said.append)
    assert len(cut[0]) == len(whole[0]) - len(cards)
    assert len(said) == 1 and said[0].startswith(f"skipped {image}: the file is cut off")


def test_scene_crops_label_a_covered_index_background_and_leave_out_a_half_covered_one():
    from types import SimpleNamespace

    from vision.train.scene_crops import BG, SceneCropConfig, scene_corner_crops

    card = np.array([[100, 100], [150, 100], [150, 170], [100, 170]], np.float32)

    def label(code, index_visible, quad=card, visible=1.0):
        return SimpleNamespace(
            code=code, corners=quad, visible=visible, index_visible=index_visible
        )

    labels = [
        label("QS", [1.0, 0.1]),  # the top-left index shows, the bottom-right one is covered
        label("KC", [0.5, 0.5]),  # both half covered: neither reading is sure
        label(None, []),  # face down: no index
        label("JH", [1.0, 1.0], card * 4),  # too big for a far card
        label("AD", [1.0, 1.0], card - [120, 0]),  # its top-left corner outside the frame
    ]
    image = np.full((720, 1280, 3), 128, np.uint8)
    cfg = SceneCropConfig(jitters=2, wrong_way=0.0)
    crops, classes = scene_corner_crops(image, labels, np.random.default_rng(0), cfg)
    qs, ad = CLASS_NAMES.index("QS"), CLASS_NAMES.index("AD")
    assert classes.tolist() == [qs, qs, BG, BG, BG, ad, ad]
    assert crops.shape == (7, 48, 40, 3)
    # Read the other way round (a long side on top), a card's corner is background.
    cfg = SceneCropConfig(jitters=1, wrong_way=1.0)
    _, classes = scene_corner_crops(image, labels[:1], np.random.default_rng(0), cfg)
    assert classes.tolist() == [qs, BG, BG]


def test_scene_crops_are_cut_at_the_index_of_the_card_they_are_labelled():
    from vision.recognizer import Recognizer, models_present
    from vision.train.scene_crops import BG, SceneCropConfig, render_scene_crops

    if not models_present():
        pytest.skip("the shipped models read the crops")
    rec = Recognizer(threads=1)
    if not rec.far_classifiers:
        pytest.skip("no far-card classifiers in the models")
    # One road photo at 1280x720, its cards cut at their true outlines.
    cfg = SceneCropConfig(scenes=1, jitter=0.0, shift=0.0, wrong_way=1.0)
    crops, classes = render_scene_crops(cfg, log=lambda *_: None)
    read = rec.classify_crops(crops, rec.far_classifiers).argmax(axis=1)
    index = classes != BG
    assert index.sum() >= 30 and (~index).sum() >= 10
    # The far-card classifiers read the index the label names (a misplaced or mislabelled
    # crop reads background or another card), and the crops labelled background as such.
    # Far cards at their true outlines read 0.83-0.93 right, scene by scene.
    assert (read[index] == classes[index]).mean() >= 0.75
    assert (read[~index] == BG).mean() >= 0.8


def test_an_exported_classifier_is_read_back_into_the_network():
    torch = pytest.importorskip("torch", reason="needs the train extra (torch)")
    import onnxruntime as ort

    from vision.recognizer import FAR_FILES, MODEL_DIR
    from vision.train.classifier import CornerNet, load_onnx_classifier
    from vision.train.crops import CropSampler, SamplerConfig

    path = MODEL_DIR / FAR_FILES[1]
    if not path.is_file():
        pytest.skip(f"no {path}")
    sampler = CropSampler(SamplerConfig(width_px=(30.0, 150.0)))
    rng = np.random.default_rng(4)
    x = np.stack([sampler.sample(rng)[0] for _ in range(160)])
    model = CornerNet()
    load_onnx_classifier(model, path, x[:80])
    inputs = np.ascontiguousarray(x[80:].transpose(0, 3, 1, 2), np.float32) / 255.0
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"crops": inputs})
    model.eval()
    with torch.no_grad():
        got = model(torch.from_numpy(inputs)).numpy()
    # The same network but for the file's int8 activations.
    assert (got.argmax(axis=1) == want.argmax(axis=1)).mean() >= 0.95
    model.train()  # a training batch normalizes by its own statistics: nearly the same
    with torch.no_grad():
        got = model(torch.from_numpy(inputs)).numpy()
    assert (got.argmax(axis=1) == want.argmax(axis=1)).mean() >= 0.9


def test_the_classifier_learns_scene_crops_rendered_once(tmp_path):
    pytest.importorskip("torch", reason="needs the train extra (torch)")
    import json

    from vision.train.classifier import ClassifierConfig, train_classifier

    cfg = ClassifierConfig(
        out=str(tmp_path / "run"),
        steps=2,
        batch=8,
        workers=0,
        val_size=16,
        scene_crops="road",
        scene_count=1,
        scene_val_count=1,
    )
    lines: list[str] = []
    train_classifier(cfg, log=lines.append)
    assert sum("rendering 1 road scenes" in line for line in lines) == 2  # training, validation
    metrics = json.loads((tmp_path / "run" / "classifier_metrics.json").read_text())
    assert 0.0 <= metrics["final"]["scenes"]["accuracy"] <= 1.0
    cfg.steps = 3  # a second run resumes and reads the crops rendered
    lines.clear()
    train_classifier(cfg, log=lines.append)
    assert not any("rendering" in line for line in lines)
    assert any("resuming at step 2" in line for line in lines)
