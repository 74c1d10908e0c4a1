"""`kortbord detect` / `eval` / `train` argument handling, with a stand-in recognizer."""

from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest

from kortbord.cli import main
from vision.detections import Detections


class FakeRecognizer:
    """Sees one 7♥ in the middle of every frame."""

    def __call__(self, frame):
        h, w = frame.shape[:2]
        quad = [[w * 0.4, h * 0.3], [w * 0.6, h * 0.3], [w * 0.6, h * 0.7], [w * 0.4, h * 0.7]]
        return Detections(np.array([quad], np.float32), ("7H",), np.array([0.93], np.float32))


@pytest.fixture
def fake_recognizer(monkeypatch):
    import vision.cli

    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: FakeRecognizer())


@pytest.fixture
def images(tmp_path):
    good = tmp_path / "table.png"
    cv2.imwrite(str(good), np.full((120, 160, 3), 90, np.uint8))
    bad = tmp_path / "notes.jpg"
    bad.write_text("not an image")
    return good, bad, tmp_path / "missing.jpg"


def test_detect_json_has_one_object_per_readable_image_and_names_bad_files(
    fake_recognizer, images, capsys
):
    good, bad, missing = images
    rc = main(["detect", str(good), str(bad), str(missing), str(good), "--json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert rc == 1  # some files could not be read
    assert [d["image"] for d in data] == [str(good), str(good)]
    card = data[0]["cards"][0]
    assert set(card) == {"code", "confidence", "corners"}
    assert card["code"] == "7H" and card["confidence"] == pytest.approx(0.93)
    assert len(card["corners"]) == 4 and all(len(p) == 2 for p in card["corners"])
    assert f"{bad}: not a readable image" in err
    assert f"{missing}: no such file" in err
    assert "Traceback" not in err


def test_detect_table_and_annotate(fake_recognizer, images, tmp_path, capsys):
    good, _, _ = images
    out_dir = tmp_path / "ann"
    rc = main(["detect", str(good), "--annotate", str(out_dir)])
    out, _ = capsys.readouterr()
    assert rc == 0
    assert "1 card" in out and "7H" in out
    drawn = cv2.imread(str(out_dir / "table.jpg"))
    assert drawn is not None and drawn.shape == (120, 160, 3)
    assert not np.array_equal(drawn, np.full_like(drawn, 90))  # the card outline was drawn


def test_detect_names_an_image_it_cannot_recognise_and_goes_on(
    fake_recognizer, monkeypatch, images, tmp_path, capsys
):
    import vision.cli

    good, _, _ = images
    odd = tmp_path / "odd.png"
    cv2.imwrite(str(odd), np.full((40, 60, 3), 10, np.uint8))

    def recognise(frame):
        if frame.shape[:2] == (40, 60):
            raise ValueError("frame too odd")
        return FakeRecognizer()(frame)

    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: recognise)
    rc = main(["detect", str(odd), str(good), "--json"])
    out, err = capsys.readouterr()
    assert rc == 1
    assert [d["image"] for d in json.loads(out)] == [str(good)]
    assert f"{odd}: cannot be recognised: frame too odd" in err


def test_a_name_that_is_not_utf8_is_read_and_drawn_not_a_crash(tmp_path):
    """A photo and a folder named in another code page (``kort\xe6.png``: a Windows camera
    card's or zip's æ) ended ``detect`` in "Segmentation fault" inside OpenCV, with nothing
    said for the other photos; run apart, as the crash took the whole process."""
    import os
    import subprocess
    import sys

    folder = tmp_path / os.fsdecode(b"fotos \xe6")
    folder.mkdir()
    photo = folder / os.fsdecode(b"kort\xe6.png")
    photo.write_bytes(cv2.imencode(".png", np.full((60, 80, 3), 90, np.uint8))[1].tobytes())
    run = subprocess.run(
        [sys.executable, "-m", "kortbord", "detect", os.fsencode(photo), "--annotate",
         os.fsencode(folder / "drawn")],
        capture_output=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout.decode().startswith(f"{tmp_path}/fotos \\xe6/kort\\xe6.png: 0 cards")
    drawn = cv2.imdecode(np.fromfile(folder / "drawn" / os.fsdecode(b"kort\xe6.jpg"), np.uint8), 1)
    assert drawn.shape == (60, 80, 3)


def test_detect_never_draws_over_a_photo_it_was_given(fake_recognizer, tmp_path, capsys):
    """``detect --annotate photos photos/*.jpg`` wrote each drawing over its photo (and a.png's
    over a.jpg before a.jpg was read): the photos were lost. A drawing takes another name."""
    photos = tmp_path / "photos"
    photos.mkdir()
    given = {}
    for name, grey in (("a.png", 60), ("a.jpg", 90), ("b.jpg", 120)):
        cv2.imwrite(str(photos / name), np.full((40, 60, 3), grey, np.uint8))
        given[name] = (photos / name).read_bytes()
    argv = ["detect", *(str(photos / n) for n in given), "--annotate", str(photos), "--json"]
    assert main(argv) == 0
    assert {n: (photos / n).read_bytes() for n in given} == given
    assert [d["cards"][0]["code"] for d in json.loads(capsys.readouterr().out)] == ["7H"] * 3
    drawings = {p.name: round(cv2.imread(str(p))[-1, -1, 0] / 10) for p in photos.glob("*-*.jpg")}
    assert drawings == {"a-2.jpg": 6, "a-3.jpg": 9, "b-2.jpg": 12}  # each photo's grey, as JPEG


def test_detect_never_draws_over_a_file_it_was_not_given(fake_recognizer, tmp_path, capsys):
    """``detect --annotate photos other/a.png`` drew a.png's cards into photos/a.jpg, a photo
    already there that was not given: it was lost. Any file there keeps its name."""
    photos, other = tmp_path / "photos", tmp_path / "other"
    photos.mkdir()
    other.mkdir()
    cv2.imwrite(str(photos / "a.jpg"), np.full((40, 60, 3), 90, np.uint8))
    (photos / "a-2.jpg").write_bytes(b"an earlier drawing")
    kept = {p.name: p.read_bytes() for p in photos.iterdir()}
    cv2.imwrite(str(other / "a.png"), np.full((40, 60, 3), 60, np.uint8))
    assert main(["detect", str(other / "a.png"), "--annotate", str(photos)]) == 0
    assert {n: (photos / n).read_bytes() for n in kept} == kept
    assert sorted(p.name for p in photos.iterdir()) == ["a-2.jpg", "a-3.jpg", "a.jpg"]
    assert round(cv2.imread(str(photos / "a-3.jpg"))[-1, -1, 0] / 10) == 6  # a.png's grey


def test_detect_json_writes_a_name_that_is_not_utf8_as_messages_show_it(
    fake_recognizer, tmp_path, capsys
):
    """``detect --json`` wrote ``kortæ.png`` named in Latin-1 as "kort\\udce6.png": a lone
    surrogate, which strict JSON readers refuse. It is written as messages show it."""
    import os

    photo = tmp_path / os.fsdecode(b"kort\xe6.png")
    photo.write_bytes(cv2.imencode(".png", np.full((40, 60, 3), 90, np.uint8))[1].tobytes())
    assert main(["detect", str(photo), "--json"]) == 0
    out = capsys.readouterr().out
    assert "\\udc" not in out
    assert json.loads(out)[0]["image"] == f"{tmp_path}/kort\\xe6.png"
    with pytest.raises(SystemExit):
        main(["detect", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "a byte that is not UTF-8 as \\xNN, as messages show it" in said


def test_road_never_draws_over_its_photo(tmp_path, capsys):
    """``road photo.jpg --annotate photo.jpg`` (a folder meant) drew over the photo."""
    photo = tmp_path / "road.jpg"
    cv2.imwrite(str(photo), np.full((40, 60, 3), 90, np.uint8))
    kept = photo.read_bytes()
    (tmp_path / "road.json").write_text("[]")  # no card seen: the photo is drawn as it is
    assert main(["road", str(photo), "--truth", "--annotate", str(photo)]) == 2
    assert photo.read_bytes() == kept
    err = capsys.readouterr().err
    assert err == f"kortbord road: --annotate '{photo}' is the photo itself: give another name\n"


def test_detect_help_says_what_it_prints_and_where_its_models_are(capsys):
    """A newcomer's ``detect --help``: "model folder (default: models/)" read as ./models, and
    nothing said what the columns printed are or what the exit status means."""
    from vision.recognizer import MODEL_DIR

    with pytest.raises(SystemExit):
        main(["detect", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert f"(default: the shipped models, {MODEL_DIR})" in said
    assert "the confidence (0-1) and the four corners in pixels" in said
    assert "Exit status: 0 when done; 1 when an image could not be read" in said


def test_detect_into_a_reader_that_went_away_stops_without_a_word(
    fake_recognizer, images, tmp_path, monkeypatch, capsys
):
    """``kortbord detect *.jpg | head -1`` ended in "kortbord detect: broken pipe", exit 2."""
    import os
    import sys

    class GoneAway:
        def __init__(self):
            self.fd = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT)

        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            pass

        def fileno(self):
            return self.fd

    good, _, _ = images
    monkeypatch.setattr(sys, "stdout", GoneAway())
    assert main(["detect", str(good), str(good)]) == 0
    assert capsys.readouterr().err == ""


def test_the_help_names_the_default_decks_folder_and_the_road_photo(capsys):
    """ "default: every deck in ../shared/decks" was relative to the checkout, not to where the
    command runs (``road --truth road.jpg``: see the test below)."""
    from vision.cli import DECKS

    for command in ("eval", "road"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert f"(default: every deck in {DECKS})" in said
    assert "IMAGE the photo of the road" in said


def test_detect_draws_two_images_of_one_name_into_two_files(
    fake_recognizer, images, tmp_path, capsys
):
    good, _, _ = images
    other = tmp_path / "other"
    other.mkdir()
    twin = other / good.name
    cv2.imwrite(str(twin), np.full((80, 100, 3), 90, np.uint8))
    out_dir = tmp_path / "ann"
    assert main(["detect", str(good), str(twin), "--annotate", str(out_dir)]) == 0
    assert cv2.imread(str(out_dir / "table.jpg")).shape == (120, 160, 3)
    assert cv2.imread(str(out_dir / "table-2.jpg")).shape == (80, 100, 3)


@pytest.mark.parametrize(
    ("truth", "says"),
    [
        ("5", "cards must be a list of objects, not 5"),
        ("[1, 2]", "cards must be a list of objects, not [1, 2]"),
        # compared with a number only as the road is read: a traceback there
        (
            '[{"code": "7S", "corners": [[0, 0], [1, 0], [1, 1], [0, 1]], "visible": "x"}]',
            "'visible' must be a number, not 'x'",
        ),
        ('[{"code": "ZZ", "corners": [[0, 0], [1, 0], [1, 1], [0, 1]]}]', "unknown card code"),
        ('[{"code": "7S"}]', "no 'corners'"),
        ('{"cards": [{"code": "7S", "corners": "x"}]}', "could not convert"),
    ],
)
def test_road_names_a_malformed_ground_truth_file(images, tmp_path, capsys, truth, says):
    good, _, _ = images
    labels = tmp_path / "truth.json"
    labels.write_text(truth)
    assert main(["road", str(good), "--truth", str(labels), "--json"]) == 2
    out, err = capsys.readouterr()
    reply = json.loads(out)
    assert reply["error"].startswith(f"bad ground truth {str(labels)!r}") and says in reply["error"]
    assert "Traceback" not in err


def test_a_json_file_nested_too_deeply_is_named_not_a_traceback(images, tmp_path, capsys):
    good, _, _ = images
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["road", str(good), "--truth", str(deep)]) == 2
    said = f"cannot read ground truth {str(deep)!r}: its JSON is nested too deeply"
    assert capsys.readouterr().err == f"kortbord road: {said}\n"
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "000001.png"), cv2.imread(str(good)))
    labels = tmp_path / "labels.jsonl"
    labels.write_text("")
    argv = ["watch", str(frames), "--game", "skipbo", "--truth", str(labels), "--zones", str(deep)]
    assert main(argv) == 2
    said = f"bad --zones {str(deep)!r}: its JSON is nested too deeply"
    assert capsys.readouterr().err == f"kortbord watch: {said}\n"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["detect", "{good}", "--annotate", "{file}"], "cannot create --annotate folder '{file}'"),
        (["dataset", "preview", "--out", "{file}/x.jpg", "--size", "64x64", "--layouts", "hand"],
         "--out '{file}/x.jpg': '{file}' is a file, not a folder"),
        (["dataset", "video", "--game", "sten", "--out", "{file}", "--size", "64x64"],
         "--out '{file}' is a file, not a folder"),
        (["dataset", "build", "--out", "{file}/sub", "--images", "1", "--size", "64x64"],
         "--out '{file}/sub': '{file}' is a file, not a folder"),
        (["serve", "--data", "{file}/data", "--port", "1"], "cannot use data folder '{file}/data'"),
        (["watch", "{tmp}", "--game", "skipbo", "--truth", "{file}", "--zones", "{tmp}"],
         "bad --zones '{tmp}'"),
    ],
)  # fmt: skip
def test_a_file_system_refusal_is_said_in_words_not_an_errno(images, tmp_path, capsys, argv, says):
    good, _, _ = images
    file = tmp_path / "notes.txt"
    file.write_text("")
    fill = {"good": str(good), "file": str(file), "tmp": str(tmp_path)}
    assert main([a.format(**fill) for a in argv]) == 2
    err = capsys.readouterr().err
    assert says.format(**fill) in err and "[Errno" not in err and err.count("\n") == 1


def test_detect_without_models_is_a_clear_error(tmp_path, images, capsys):
    good, _, _ = images
    (tmp_path / "empty").mkdir()
    rc = main(["detect", str(good), "--models", str(tmp_path / "empty")])
    _, err = capsys.readouterr()
    assert rc == 2
    assert "card_detector.onnx" in err and "missing" in err


@pytest.mark.parametrize(
    ("given", "says"), [("table.png", "not a folder"), ("nowhere", "no such folder")]
)
@pytest.mark.parametrize(
    "command", [["detect", "table.png"], ["replay", "table.png", "--game", "sten"]]
)
def test_models_given_a_file_or_nothing_says_so_not_that_a_model_file_is_missing(
    tmp_path, images, capsys, given, says, command
):
    """``--models photo.png`` said "model file 'photo.png/card_detector.onnx' is missing"."""
    models = tmp_path / given
    rc = main(
        [*(str(tmp_path / a) if a == "table.png" else a for a in command), "--models", str(models)]
    )
    _, err = capsys.readouterr()
    assert rc == 2
    assert err.startswith(f"kortbord {command[0]}: model folder {str(models)!r}: {says} (train")
    assert "card_detector.onnx" not in err


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["detect", "table.png", "--models", ""], "--models"),
        (["detect", "table.png", "--annotate", ""], "--annotate"),
        (["road", "table.png", "--truth", "--annotate", ""], "--annotate"),
        (["eval", "--synthetic-images", "1", "--deck-dir", ""], "--deck-dir"),
        (["train", "--deck-dir", ""], "--deck-dir"),
        (["train", "--only", "package", "--out", ""], "--out"),
        (["train", "--only", "package", "--install", ""], "--install"),
        (["train", "--only", "package", "--start-from", ""], "--start-from"),
        (["train", "--only", "package", "--real-photos", ""], "--real-photos"),
        (["dataset", "build", "--out", "", "--images", "1", "--size", "64x64"], "--out"),
        (["dataset", "build", "--out", "x", "--images", "1", "--deck-dir", ""], "--deck-dir"),
        (["dataset", "preview", "--out", "x.png", "--deck-dir", ""], "--deck-dir"),
        (["dataset", "build", "--config", "conf.yaml", "--images", "1"], "deck_dirs in"),
        (["dataset", "video", "--game", "sten", "--out", "", "--size", "64x64"], "--out"),
    ],
)
def test_an_empty_folder_path_is_refused_by_name(argv, option, tmp_path, monkeypatch, capsys):
    """``--deck-dir ''`` (a blank a script left) was read as the current folder: its files
    taken for a deck's, models looked for there, a dataset or a training run written there,
    or the option quietly left out (``--annotate ''`` drew nothing); it is refused by name, as
    ``eval --real ''`` is, and nothing is written."""
    import vision.train.run

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(vision.train.run, "train", lambda opts: "nowhere")  # never trained
    (tmp_path / "conf.yaml").write_text('out: data\ndeck_dirs: [""]\n')
    before = sorted(tmp_path.iterdir())
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kortbord {argv[0]}: {option}") and "not an empty path" in err
    assert sorted(tmp_path.iterdir()) == before


def test_eval_skips_the_default_real_photos_when_absent_but_not_named_ones(
    monkeypatch, tmp_path, capsys
):
    import vision.cli
    import vision.realphotos
    import vision.recognizer_eval

    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: FakeRecognizer())
    monkeypatch.setattr(vision.realphotos, "DEFAULT_DIR", tmp_path / "none")
    scenes = vision.recognizer_eval.Tally()
    monkeypatch.setattr(vision.recognizer_eval, "eval_synthetic", lambda *a, **kw: {"x": scenes})
    assert main(["eval", "--synthetic-images", "1"]) == 0
    assert "not found; skipping" in capsys.readouterr().out
    assert main(["eval", "--synthetic-images", "0"]) == 2
    assert "nothing to measure" in capsys.readouterr().err
    assert main(["eval", "--real", str(tmp_path)]) == 2
    assert f"--real {str(tmp_path)!r}: no test/ folder" in capsys.readouterr().err
    assert main(["eval", "--synthetic-images", "1", "--real", ""]) == 2  # not the default
    out, err = capsys.readouterr()
    assert "--real needs a folder" in err and "skipping" not in out
    missing = tmp_path / "gone"
    assert main(["eval", "--synthetic-images", "1", "--real", str(missing)]) == 2
    assert f"--real {str(missing)!r}: no such folder" in capsys.readouterr().err


def test_eval_names_an_incomplete_deck_folder(monkeypatch, tmp_path, capsys):
    import vision.cli

    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: FakeRecognizer())
    rc = main(["eval", "--synthetic-images", "1", "--deck-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and "missing 52 of the 52 standard cards" in err and "Traceback" not in err


def test_train_names_a_bad_deck_dir(capsys, tmp_path):
    rc = main(["train", "--deck-dir", str(tmp_path / "nodeck"), "--out", str(tmp_path / "run")])
    _, err = capsys.readouterr()
    assert rc == 2 and "nodeck" in err


@pytest.mark.parametrize("widths", ["150,30", "30", "a,b", "0,150"])
def test_train_names_bad_classifier_widths(capsys, tmp_path, widths):
    rc = main(["train", "--classifier-widths", widths, "--out", str(tmp_path / "run")])
    _, err = capsys.readouterr()
    assert rc == 2 and "--classifier-widths" in err and not (tmp_path / "run").exists()


def _damaged_pictures(tmp_path):
    """Write a whole JPEG and PNG and the same cut off or damaged; return (whole, {damaged
    file: what it is said to be})."""
    import struct
    import zlib

    picture = np.random.default_rng(1).integers(0, 255, (240, 320, 3), np.uint8)
    photo = tmp_path / "photo.jpg"
    cv2.imwrite(str(photo), picture)
    data = photo.read_bytes()
    png = cv2.imencode(".png", picture)[1].tobytes()
    idat = png.index(b"IDAT")
    said = {}
    for name, bad, says in [
        ("cut.jpg", data[: len(data) // 2], "the file is cut off"),
        # whole, with bytes that belong nowhere before its end
        ("extra.jpg", data[:-2] + bytes(12) + data[-2:], "the file is damaged (Corrupt JPEG"),
        # damaged in the middle: a stretch of its bytes zeroed (a bad sector, a bad copy)
        ("zeroed.jpg", data[: len(data) // 2] + bytes(300) + data[len(data) // 2 + 300 :],
         "the file is damaged (Corrupt JPEG data"),
        ("cut.png", png[: len(png) // 2], "the file is cut off"),
        # a chunk's byte changed: its checksum no longer fits
        ("chunk.png", png[: idat + 50] + bytes([png[idat + 50] ^ 0xFF]) + png[idat + 51 :],
         "the file is damaged (IDAT: CRC error)"),
        # a comment whose checksum is wrong: the picture reads, the file is damaged
        ("text.png", png[:33] + struct.pack(">I", 5) + b"tEXt" + b"a\x00bcd"
         + struct.pack(">I", zlib.crc32(b"tEXta\x00bce")) + png[33:],
         "the file is damaged (tEXt: CRC error)"),
    ]:  # fmt: skip
        (tmp_path / name).write_bytes(bad)
        said[tmp_path / name] = says
    return photo, said


def test_detect_names_a_folder_and_refuses_a_cut_off_or_damaged_photo(
    fake_recognizer, tmp_path, capfd
):
    """A cut-off or damaged photo was read (with a warning) and its cards reported, though
    OpenCV greys or garbles the missing part: a table with other cards than it holds."""
    photo, damaged = _damaged_pictures(tmp_path)
    rc = main(["detect", *map(str, damaged), str(photo), "--json"])
    rc_folder = main(["detect", str(tmp_path), "--json"])
    out, err = capfd.readouterr()
    images = [d["image"] for d in json.loads(out.split("\n[")[0])]
    assert rc == 1 and rc_folder == 1 and images == [str(photo)]
    assert f"{tmp_path}: a folder, not an image" in err and f"{photo}:" not in err
    for path, says in damaged.items():
        assert f"kortbord detect: {path}: {says}" in err
    # libjpeg's and libpng's own lines are said inside the command's words, not around them
    assert "Premature end of JPEG file" not in err and err.count("Corrupt JPEG") == 2
    assert err.count("CRC error") == 2 and len(err.splitlines()) == len(damaged) + 1


def test_a_picture_read_whole_is_not_refused_for_what_follows_its_end(tmp_path):
    """A phone's trailer after a JPEG's end marker, zeros after a PNG's: the library reads
    the picture whole and says nothing, so it is no damage."""
    from vision.images import decode_image, read_image

    picture = np.random.default_rng(1).integers(0, 255, (24, 32, 3), np.uint8)
    for ext, trailer in ((".jpg", b"SEFH" + bytes(range(200)) + b"SEFT"), (".png", bytes(100))):
        data = cv2.imencode(ext, picture)[1].tobytes() + trailer
        (tmp_path / f"photo{ext}").write_bytes(data)
        assert read_image(tmp_path / f"photo{ext}").shape == (24, 32, 3)
        assert decode_image(data).shape == (24, 32, 3)


def test_a_cut_off_or_damaged_pictures_bytes_are_refused_as_its_file_is(tmp_path, capfd):
    """The web app's photos and phone frames are bytes: a damaged one decoded garbled."""
    from vision.images import DamagedImage, decode_image, read_image

    photo, damaged = _damaged_pictures(tmp_path)
    assert decode_image(photo.read_bytes()).shape == read_image(photo).shape == (240, 320, 3)
    for path, says in damaged.items():
        with pytest.raises(DamagedImage, match=re.escape(says)):
            decode_image(path.read_bytes())
    err = capfd.readouterr().err
    assert "JPEG" not in err and "CRC" not in err


def test_any_other_reason_a_file_cannot_be_opened_is_said_as_the_others_are(tmp_path):
    from vision.images import ImageError, read_image

    loop = tmp_path / "loop.jpg"
    loop.symlink_to(loop)
    with pytest.raises(ImageError, match=r"^too many levels of symbolic links$"):
        read_image(loop)


def test_a_file_the_command_may_not_read_is_named_plainly(monkeypatch, images, capsys):
    from pathlib import Path

    from vision.images import ImageError, read_image

    good, _, _ = images

    def refuse(self, *a, **kw):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "open", refuse)
    with pytest.raises(ImageError, match=r"^permission denied$"):
        read_image(good)
    assert main(["road", str(good)]) == 2
    assert capsys.readouterr().err == f"kortbord road: {good}: permission denied\n"


def _road_truth(tmp_path, misread=None):
    from tests.vision.test_road import lay_road

    cards, road = lay_road("serpentine", 3)
    cards = [((misread or {}).get(c, c), q) for c, q in cards]
    photo = tmp_path / "road.png"
    cv2.imwrite(str(photo), np.full((1500, 1500, 3), 70, np.uint8))
    truth = tmp_path / "road.json"
    truth.write_text(json.dumps([{"code": c, "corners": (q + 300).tolist()} for c, q in cards]))
    return photo, truth, road


def test_road_annotates_into_a_folder_with_each_places_code(tmp_path, capsys):
    photo, truth, road = _road_truth(tmp_path)
    out_dir = tmp_path / "drawn"
    out_dir.mkdir()
    assert main(["road", str(photo), "--truth", str(truth), "--annotate", str(out_dir)]) == 0
    assert capsys.readouterr().out.startswith("road: " + " ".join(road))
    drawn = cv2.imread(str(out_dir / "road-road.jpg"))
    assert drawn is not None and drawn.shape == (1500, 1500, 3)
    red = (drawn[..., 2] > 200) & (drawn[..., 0] < 120) & (drawn[..., 1] < 120)
    assert red.sum() < 20  # nothing to check: no card in red


def test_road_makes_an_annotate_folder_named_with_a_slash_as_detect_does(tmp_path, capsys):
    """``road photo.jpg --annotate out/`` was refused ("give a folder or a picture's name"),
    where ``detect`` made out/."""
    photo, truth, _ = _road_truth(tmp_path)
    out = tmp_path / "drawn" / "new"
    assert main(["road", str(photo), "--truth", str(truth), "--annotate", f"{out}/"]) == 0
    assert cv2.imread(str(out / "road-road.jpg")).shape == (1500, 1500, 3)
    (tmp_path / "file").write_text("")
    assert main(["road", str(photo), "--truth", "--annotate", f"{tmp_path}/file/sub/"]) == 2
    assert capsys.readouterr().err.endswith(
        f"cannot create --annotate folder '{tmp_path}/file/sub/': not a directory\n"
    )


def test_road_annotates_the_cards_to_check_in_red_and_prints_first(tmp_path, capsys):
    photo, truth, _ = _road_truth(tmp_path, misread={"QH": "QS"})
    out = tmp_path / "road-drawn.png"
    assert main(["road", str(photo), "--truth", str(truth), "--annotate", str(out)]) == 1
    printed = capsys.readouterr()
    assert "missing: QH; doubled: QS" in printed.err and printed.out.startswith("road: ")
    drawn = cv2.imread(str(out))
    red = (drawn[..., 2] > 200) & (drawn[..., 0] < 120) & (drawn[..., 1] < 120)
    assert red.sum() > 40  # both Q♠ (one of them the Q♥ read wrong) in red


@pytest.mark.parametrize(
    ("annotate", "says"),
    [("road.txt", "give a folder or a picture's name ending in"), ("nowhere/r.png", "no folder")],
)
def test_road_refuses_an_annotate_path_it_cannot_write(tmp_path, capsys, annotate, says):
    photo, truth, _ = _road_truth(tmp_path)
    assert (
        main(["road", str(photo), "--truth", str(truth), "--annotate", str(tmp_path / annotate)])
        == 2
    )
    assert says in capsys.readouterr().err


@pytest.mark.parametrize("threads", ["0", "-1"])
def test_detect_refuses_no_threads(images, capsys, threads):
    good, _, _ = images
    with pytest.raises(SystemExit) as done:
        main(["detect", str(good), "--threads", threads])
    assert done.value.code == 2
    assert "argument --threads: expected a whole number 1–" in capsys.readouterr().err


def test_a_label_of_a_card_at_the_pictures_edge_stays_inside_it():
    from vision.recognizer import draw_detections

    frame = np.zeros((100, 200, 3), np.uint8)
    quad = np.array([[[150, -10], [230, -10], [230, 60], [150, 60]]], np.float32)
    drawn = draw_detections(frame, Detections(quad, ("10H",), np.array([0.9], np.float32)))
    white = np.argwhere(drawn.min(axis=2) > 200)
    assert len(white) > 20  # the label, in white
    assert white[:, 1].max() < 199 and white[:, 0].min() > 0  # within the picture


@pytest.mark.parametrize(("w", "h"), [(4032, 3024), (3024, 4032)])
def test_a_phone_photos_labels_and_outlines_grow_with_it(w, h):
    """Drawn in fixed pixels, a phone photo's label was 12 px high and its outline 2 px: seen
    whole on a screen (a fifth of its size), specks and hairlines."""
    from vision.recognizer import draw_detections

    frame = np.full((h, w, 3), 90, np.uint8)
    quad = np.array([[[1000, 1000], [1800, 1000], [1800, 2000], [1000, 2000]]], np.float32)
    drawn = draw_detections(frame, Detections(quad, ("10H",), np.array([0.9], np.float32)))
    white = np.argwhere(drawn.min(axis=2) > 200)  # the label's letters
    assert np.ptp(white[:, 0]) >= 0.01 * max(w, h)  # 40 px: 8 px seen at a fifth
    assert white[:, 0].max() < 1000  # above the card
    green = np.flatnonzero((drawn[1500, :, 1] > 180) & (drawn[1500, :, 0] < 60))
    assert np.count_nonzero(green < 1400) >= 8  # the left side, 8 px wide or more


def test_a_cut_off_png_that_cannot_be_read_says_so(tmp_path, capfd):
    from vision.images import ImageError, read_image

    photo = tmp_path / "photo.png"
    cv2.imwrite(str(photo), np.random.default_rng(2).integers(0, 255, (120, 160, 3), np.uint8))
    photo.write_bytes(photo.read_bytes()[:2000])
    with pytest.raises(ImageError, match="the file is cut off: it cannot be read"):
        read_image(photo)
    assert "libpng" not in capfd.readouterr().err


def test_a_harmless_libpng_warning_is_no_damage_and_threads_keep_stderr(tmp_path, capfd):
    import os
    import struct
    import threading
    import zlib

    from vision.images import read_image

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        return struct.pack(">I", len(data)) + kind + data + crc

    good = cv2.imencode(".png", np.full((40, 40, 3), 100, np.uint8))[1].tobytes()
    odd = tmp_path / "odd-profile.png"  # libpng warns of the colour profile and reads on
    odd.write_bytes(
        good[:33] + chunk(b"iCCP", b"junk\x00\x00" + zlib.compress(bytes(200))) + good[33:]
    )
    assert read_image(odd).shape == (40, 40, 3)
    # decodings in several threads leave the process's stderr where it was
    photo = tmp_path / "photo.jpg"
    cv2.imwrite(str(photo), np.full((400, 400, 3), 50, np.uint8))
    before = os.fstat(2)
    threads = [
        threading.Thread(target=lambda: [read_image(photo) for _ in range(10)]) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    after = os.fstat(2)
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)


def test_another_threads_words_on_stderr_are_no_damage_and_stay_there(tmp_path, capfd, monkeypatch):
    """A server's request log written while a frame of a video decoded was taken for what
    libjpeg said: `kortbord run`'s demo skipped good frames as damaged (its camera line
    said "end of … (3 could not be read)") and the log lost those lines. Damage is what the
    library says again; other words go on to stderr."""
    import os

    from vision import images

    photo = tmp_path / "photo.jpg"
    cv2.imwrite(str(photo), np.full((40, 40, 3), 50, np.uint8))
    damaged = tmp_path / "damaged.jpg"  # bytes that belong nowhere before its end
    data = photo.read_bytes()
    damaged.write_bytes(data[:-2] + bytes(12) + data[-2:])
    real, calls = images.imread, []
    logged = b'127.0.0.1 - - [06/Dec/2026 17:51:31] "GET / HTTP/1.1" 200 -\n'

    def imread_while_a_request_is_logged(path):
        calls.append(path)
        if len(calls) == 1:  # another thread's words, on the process's stderr meanwhile
            os.write(2, logged)
        return real(path)

    monkeypatch.setattr(images, "imread", imread_while_a_request_is_logged)
    assert images.read_image(photo).shape == (40, 40, 3)
    assert logged.decode() in capfd.readouterr().err
    calls.clear()
    with pytest.raises(images.DamagedImage) as refused:
        images.read_image(damaged)
    said = str(refused.value)
    assert said.startswith("the file is damaged (Corrupt JPEG data")
    assert "GET /" not in said and logged.decode() in capfd.readouterr().err


def _png_claiming(width: int, height: int) -> bytes:
    """A few bytes of PNG whose header claims ``width`` × ``height`` pixels."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        return struct.pack(">I", len(data)) + kind + data + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(100)))
        + chunk(b"IEND", b"")
    )


def test_detect_names_a_picture_claiming_too_many_pixels_and_goes_on(
    fake_recognizer, images, tmp_path, capfd
):
    good, _, _ = images
    huge = tmp_path / "huge.png"  # 3.6 billion pixels: OpenCV refuses it with an exception
    huge.write_bytes(_png_claiming(60000, 60000))
    rc = main(["detect", str(huge), str(good), "--json"])
    out, err = capfd.readouterr()
    assert rc == 1 and [d["image"] for d in json.loads(out)] == [str(good)]
    assert f"{huge}: too many pixels" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_detect_names_a_pipe_and_goes_on(fake_recognizer, images, make_pipe, capsys):
    """A named pipe called photo.png: reading it waited for a writer, and detect hung."""
    good, _, _ = images
    pipe = make_pipe("photo.png")
    rc = main(["detect", str(pipe), str(good), "--json"])
    out, err = capsys.readouterr()
    assert rc == 1 and [d["image"] for d in json.loads(out)] == [str(good)]
    assert err.strip() == f"kortbord detect: {pipe}: not a file (a pipe, socket or device)"
    assert not make_pipe.waited[pipe]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["road", "{good}", "--truth", "{pipe}"], "cannot read ground truth '{pipe}'"),
        (["watch", "{folder}", "--game", "skipbo", "--zones", "{pipe}"], "bad --zones '{pipe}'"),
        (["dataset", "build", "--config", "{pipe}"], "cannot read config '{pipe}'"),
    ],
)
def test_a_pipe_given_for_a_file_to_read_is_named(
    fake_recognizer, images, make_pipe, capsys, argv, says
):
    """Its content was read as the file's (whatever a writer sent: here nothing), or the
    command waited for a writer for ever."""
    good, _, _ = images
    pipe = make_pipe("given.json", b'{"cards": []}')
    names = {"good": good, "pipe": pipe, "folder": good.parent}
    assert main([a.format(**names) for a in argv]) == 2
    err = capsys.readouterr().err
    assert says.format(**names) + ": not a file (a pipe, socket or device)" in err
    assert not make_pipe.waited[pipe]


@pytest.mark.parametrize(
    ("meta", "says"),
    [
        ("[1]", "an object of settings, not a list"),
        ('{"detector_size": "big"}', "invalid literal for int()"),
        ('{"thumbs": 5}', "not a mapping"),
        ('{"classes": []}', "the last class must be"),
    ],
)
def test_a_recognizer_json_that_holds_no_settings_is_named(images, tmp_path, capsys, meta, says):
    """A recognizer.json hand-edited or copied in ended every command in a traceback."""
    good, _, _ = images
    models = tmp_path / "models"
    models.mkdir()
    for name in ("card_detector.onnx", "card_classifier.onnx"):
        (models / name).write_bytes(b"")  # the settings are read before the models
    (models / "recognizer.json").write_text(meta)
    assert main(["detect", str(good), "--models", str(models)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"kortbord detect: {models / 'recognizer.json'}: not a recognizer's settings ("
    )
    assert says in err and err.count("\n") == 1


def test_detect_refuses_more_threads_than_cores(images, capsys, monkeypatch):
    """512 threads on 2 cores took over a minute for one photo (64: eight times as long)."""
    import kortbord.cli
    import vision.recognizer

    good, _, _ = images
    monkeypatch.setattr(kortbord.cli, "cores", lambda: 2)
    monkeypatch.setattr(vision.recognizer, "Recognizer", lambda *a, **kw: FakeRecognizer())
    with pytest.raises(SystemExit) as done:
        main(["detect", str(good), "--threads", "3"])
    assert done.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "kortbord detect: error: argument --threads: expected a whole number 1–2 "
        "(this computer has 2 cores), not 3"
    )
    assert main(["detect", str(good), "--threads", "2"]) == 0


@pytest.mark.parametrize(
    ("option", "says"),
    [
        (["--batch", "0"], "--batch: expected a whole number 1 or more, not 0"),
        (["--images", "-5"], "--images: expected a whole number 1 or more, not -5"),
        (["--threads", "0"], "--threads: expected a whole number 1–"),
        (["--workers", "-1"], "--workers: expected a whole number 0–"),
        (["--detector-hours", "-1"], "--detector-hours: expected a number 0 or more (0: no cap)"),
        (["--render-seconds", "nan"], "--render-seconds: expected a number 0 or more (0: no cap)"),
    ],
)
def test_train_names_a_bad_number_before_anything_loads(capsys, tmp_path, option, says):
    """They went on to torch and Ultralytics (a negative cap stopped at once)."""
    with pytest.raises(SystemExit) as done:
        main(["train", *option, "--out", str(tmp_path / "run")])
    assert done.value.code == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .startswith(f"kortbord train: error: argument {says}")
    )
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("device", ["gpu", "cuda:x", "1.5", "", "0,", "cuda:", "cpu0"])
def test_train_names_a_bad_device_before_anything_loads(capsys, tmp_path, device):
    """``--device`` was passed on unchecked: a typo went on to torch and Ultralytics."""
    rc = main(["train", "--device", device, "--out", str(tmp_path / "run")])
    assert rc == 2 and capsys.readouterr().err.strip() == (
        f"kortbord train: --device {device!r}: not a device "
        "(give cpu, mps, cuda, a CUDA device number (0), several (0,1) or cuda:0)"
    )
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("given", "device", "torch_device"),
    [
        ("cpu", "cpu", "cpu"),
        ("CPU", "cpu", "cpu"),
        ("mps", "mps", "mps"),
        ("cuda", "cuda", "cuda"),
        ("0", "0", "cuda:0"),
        ("1", "1", "cuda:1"),
        ("0,1", "0,1", "cuda:0"),
        ("cuda:1", "cuda:1", "cuda:1"),
        ("0, 1", "0,1", "cuda:0"),
    ],
)
def test_train_takes_the_devices_ultralytics_takes(given, device, torch_device):
    """The classifiers train on one torch device: mps was made "cuda:mps", 0,1 "cuda:0,1"."""
    from vision.train.run import _torch_device, check_device

    assert check_device(given) == device and _torch_device(device) == torch_device


class _SeesNothing:
    """A stand-in recognizer for ``eval``: no card in any photo."""

    def recognize(self, frame):
        from vision.recognizer import Recognition

        return Recognition(Detections.empty())


def _real_photos(root, names: dict[str, bytes | None], box: str = "10") -> None:
    """Write ``root/test``: per name a photo (its bytes; ``None``: a grey picture) and a VOC
    annotation of one queen whose xmin is ``box``."""
    (root / "test").mkdir(parents=True)
    for name, data in names.items():
        photo = root / "test" / f"{name}.jpg"
        if data is None:
            cv2.imwrite(str(photo), np.full((60, 80, 3), 90, np.uint8))
        else:
            photo.write_bytes(data)
        (root / "test" / f"{name}.xml").write_text(
            f"<annotation><filename>{name}.jpg</filename><object><name>queen</name><bndbox>"
            f"<xmin>{box}</xmin><ymin>5</ymin><xmax>40</xmax><ymax>50</ymax></bndbox></object>"
            "</annotation>"
        )
    (root / "test-codes.json").write_text(json.dumps({n: ["QS"] for n in names}))


def test_eval_names_a_real_photo_that_does_not_read_and_scores_the_others(
    monkeypatch, tmp_path, capsys
):
    """It was left out of the metrics without a word."""
    import vision.cli

    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: _SeesNothing())
    _real_photos(tmp_path, {"a": None, "b": b"not a photo"})
    rc = main(["eval", "--synthetic-images", "0", "--real", str(tmp_path), "--json"])
    out, err = capsys.readouterr()
    assert rc == 1 and json.loads(out)["real_test"]["images"] == 1
    bad = tmp_path / "test" / "b.jpg"
    assert err.strip() == f"kortbord eval: {bad}: not a readable image; not scored"


@pytest.mark.parametrize("option", ["--real-train", "--real-turned"])
def test_eval_names_a_real_photo_measure_it_cannot_make(monkeypatch, tmp_path, capsys, option):
    """``--real-train`` on a folder with no train/ split was dropped without a word (rc 0,
    no train figures); so was every --real-… option where no real photos were found."""
    import vision.cli

    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: _SeesNothing())
    photos = tmp_path / "photos"
    _real_photos(photos, {"a": None})
    split = "train" if option == "--real-train" else "test"
    if split == "test":  # generated scenes measured, the default real photos not there
        monkeypatch.setattr(vision.cli, "DECKS", tmp_path / "no decks")
        monkeypatch.setattr("vision.realphotos.DEFAULT_DIR", tmp_path / "none")
        argv = ["eval", "--synthetic-images", "1", option]
        photos = tmp_path / "none"
    else:
        argv = ["eval", "--synthetic-images", "0", "--real", str(photos), option]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"kortbord eval: {option}: no {split}/ folder of labelled photos in {photos}\n"


@pytest.mark.parametrize(
    ("box", "codes", "says"),
    [
        ("ten", None, "test/a.xml: a bndbox's xmin is no number: 'ten'"),
        ("10", "{", "cannot read '{root}/test-codes.json': not JSON (line 1, column 2)"),
        ("10", "[]", "test-codes.json: not an object of codes by photo name"),
    ],
)
def test_eval_names_a_real_photo_label_it_cannot_read(
    monkeypatch, tmp_path, capsys, box, codes, says
):
    """They ended eval in a traceback."""
    import vision.cli

    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: _SeesNothing())
    _real_photos(tmp_path, {"a": None}, box)
    if codes is not None:
        (tmp_path / "test-codes.json").write_text(codes)
    assert main(["eval", "--synthetic-images", "0", "--real", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kortbord eval: ") and says.format(root=tmp_path) in err
    assert err.count("\n") == 1


class _SeesTheQueen:
    """A stand-in recognizer for ``eval``: the queen of spades where :func:`_real_photos`
    labels her, in every photo."""

    def recognize(self, frame):
        from vision.recognizer import Recognition

        box = np.array([[10, 5, 40, 50]], np.float32)
        quad = np.array([[[10, 5], [40, 5], [40, 50], [10, 50]]], np.float32)
        return Recognition(Detections(quad, ("QS",), np.ones(1, np.float32)), box)


def _cut_off_jpeg() -> bytes:
    """A JPEG of noise with its second half gone."""
    noise = np.random.default_rng(0).integers(0, 256, (60, 80, 3), np.uint8)
    data = cv2.imencode(".jpg", noise)[1].tobytes()
    return data[: len(data) // 2]


def test_eval_reports_a_cut_off_real_photo_as_skipped_and_scores_the_others(
    monkeypatch, tmp_path, capsys
):
    """It was named on stderr alone: the report, JSON or readable, did not say a photo was
    left out, and counted only the photos it scored."""
    import vision.cli

    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: _SeesTheQueen())
    _real_photos(tmp_path, {"a": None, "b": _cut_off_jpeg(), "c": None})
    bad = tmp_path / "test" / "b.jpg"
    args = ["eval", "--synthetic-images", "0", "--real", str(tmp_path)]
    assert main([*args, "--json"]) == 1
    out, err = capsys.readouterr()
    report = json.loads(out)
    t = report["real_test"]
    assert (t["images"], t["cards_found_right"], t["false_positives"], t["missed"]) == (2, 2, 0, 0)
    (skipped,) = report["real_skipped"]
    assert skipped["image"] == str(bad) and skipped["why"].startswith("the file is cut off")
    assert err.strip() == f"kortbord eval: {bad}: {skipped['why']}; not scored"
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "Real photos (test split): images 2  precision 1.0000  recall 1.0000" in out
    assert f"Real photos not scored: 1\n  {bad}: {skipped['why']}\n" in out


def test_eval_decodes_each_real_photo_once(monkeypatch, tmp_path, capsys):
    """Each was decoded to be checked, then again for each way it was scored: eleven times
    with every test-split measure asked for."""
    import vision.cli

    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: _SeesTheQueen())
    _real_photos(tmp_path, {"a": None, "b": None})
    (tmp_path / "test").rename(tmp_path / "train")
    _real_photos(tmp_path, {"c": None, "d": None})
    imread, decoded = cv2.imread, []

    def counted(path, *flags):
        decoded.append(path)
        return imread(path, *flags)

    monkeypatch.setattr(cv2, "imread", counted)
    turned = ["--real-turned", "--real-angled", "--real-disturbed", "--real-train"]
    rc = main(["eval", "--synthetic-images", "0", "--real", str(tmp_path), "--json", *turned])
    photos = [tmp_path / "test" / "c.jpg", tmp_path / "test" / "d.jpg"]
    photos += [tmp_path / "train" / "a.jpg", tmp_path / "train" / "b.jpg"]
    assert sorted(decoded) == sorted(str(p) for p in photos)
    report = json.loads(capsys.readouterr().out)
    assert rc == 0 and report["real_train_ranks"]["images"] == 2
    assert report["real_test_angled"]["images"] == 6 and report["real_test"]["images"] == 2


def test_eval_of_the_real_photos_alone_holds_one_photo_at_a_time(monkeypatch, tmp_path, capsys):
    """Decoded once and kept for every measure, a folder of phone photos would all be held
    at once where one measure reads each photo once."""
    import weakref

    import vision.cli

    class Holds(_SeesTheQueen):
        def __init__(self) -> None:
            self.frames: list[weakref.ref] = []
            self.most = 0

        def recognize(self, frame):
            self.frames.append(weakref.ref(frame))
            self.most = max(self.most, sum(f() is not None for f in self.frames))
            return super().recognize(frame)

    rec = Holds()
    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: rec)
    _real_photos(tmp_path, {"a": None, "b": None, "c": None})
    assert main(["eval", "--synthetic-images", "0", "--real", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["real_test"]["images"] == 3
    assert (len(rec.frames), rec.most) == (3, 1)


def test_road_truth_before_the_photo_takes_the_photo_as_the_photo(tmp_path, capsys):
    """``--truth`` takes an optional value: ``road --truth road.png`` took the photo for the
    labels and then asked for IMAGE. A value that is no labels file is the photo, the labels
    found beside it; a labels file alone still asks for the photo; the usage says IMAGE is
    needed."""
    photo, _, road = _road_truth(tmp_path)
    assert main(["road", "--truth", str(photo)]) == 0
    assert capsys.readouterr().out.startswith("road: " + " ".join(road))
    assert main(["road", "--truth", str(tmp_path / "road.json")]) == 2
    assert "the following arguments are required: IMAGE" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["road", "--help"])
    assert capsys.readouterr().out.split("\n\n")[0].rstrip().endswith(" IMAGE")


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "--out", "{tmp}/runs\udce6"],
        ["train", "--out", "{tmp}/runs", "--install", "{tmp}/models\udce6"],
        ["eval", "--deck-dir", "{tmp}/deck\udce6"],
        [
            "dataset",
            "build",
            "--out",
            "{tmp}/data",
            "--images",
            "1",
            "--deck-dir",
            "{tmp}/deck\udce6",
        ],
        ["dataset", "build", "--out", "{tmp}/data\udce6", "--images", "1"],
    ],
)
def test_a_folder_for_opencv_whose_name_is_not_utf8_is_refused_by_name(tmp_path, capsys, argv):
    """A folder named in Latin-1 (``runs\\xe6``, from an old zip or camera card) reached
    OpenCV's ``imwrite`` (train's detector images: a segfault, the run lost) or a dataset's
    YAML (a traceback, after rendering); it is refused by name before anything loads."""
    deck = tmp_path / "deck\udce6"
    deck.mkdir()
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    said = capsys.readouterr().err
    assert "\\xe6': its name is not UTF-8" in said and "rename it" in said, said


def test_python_m_vision_train_helps_and_names_as_kortbord_does(tmp_path):
    """``python -m vision.train`` (a GPU host without the web layer) began each command's
    help at "usage:" without its exit statuses, and showed a name not UTF-8 as \\udce6."""
    import os
    import subprocess
    import sys

    def run(*argv):
        done = subprocess.run(
            [sys.executable, "-m", "vision.train", *argv], capture_output=True, timeout=60
        )
        return done.returncode, " ".join(done.stdout.decode().split()), done.stderr.decode()

    rc, out, _ = run("eval", "--help")
    assert rc == 0 and "Measure the recognizer on generated scenes and real photos." in out
    assert "Exit status: 0 when done; 1 when a real photo did not read" in out
    rc, _, err = run("eval", "--real", os.fsencode(tmp_path / os.fsdecode(b"gone\xe6")))
    assert rc == 2 and err == f"eval: --real '{tmp_path}/gone\\xe6': no such folder\n"


@pytest.mark.parametrize("name", ["missing.onnx", "weights.txt"])
def test_train_names_a_classifier_start_that_is_not_a_checkpoint(capsys, tmp_path, name):
    (tmp_path / "weights.txt").write_text("not weights")
    rc = main(["train", "--classifier-start", str(tmp_path / name), "--out", str(tmp_path / "r")])
    _, err = capsys.readouterr()
    assert rc == 2 and "not a .pt or .onnx file" in err and not (tmp_path / "r").exists()


@pytest.mark.parametrize("command", ["detect", "eval", "road"])
def test_the_classifiers_training_options_are_trains_alone(command, capsys):
    """--classifier-start and --scene-crops were offered by every command that reads photos,
    which trains nothing (the options had gone into the options those commands share)."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "--models" in out
    assert "--classifier-start" not in out and "--scene-crops" not in out


def test_train_turns_real_photos_by_other_angles_only_with_real_photos(capsys, tmp_path):
    rc = main(["train", "--real-angles", "2", "--out", str(tmp_path / "r")])
    _, err = capsys.readouterr()
    assert rc == 2 and "--real-angles turns the real photos: add --real-photos" in err
    assert not (tmp_path / "r").exists()
    with pytest.raises(SystemExit) as stop:
        main(["train", "--real-angles", "-1"])
    assert stop.value.code == 2 and "argument --real-angles: expected" in capsys.readouterr().err
