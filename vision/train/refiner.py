"""Train the outline refiner (torch) on rendered scenes, and export it to ONNX.

The detector sees the frame at low resolution, so its card corners are rough (off by a quarter of
a card's width, typically) and the index crops cut with them miss the index. The refiner looks at
a full-resolution patch around a rough outline and says where the card's true corners are. It
learns from the generator's scenes: each training sample is a card's true outline disturbed the
way the detector errs (shifted, scaled, turned, each corner pushed), and the target is the way
back. Covered corners are targets too: the refiner guesses them from the edges it can see, as
the detector does.

Checkpoints go to ``OUT/refiner_last.pt``; running again with the same ``OUT`` resumes.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import IterableDataset

from vision.crops import PATCH_SIZE, Pyramid, apply_offsets, cut_patch, patch_offsets
from vision.geometry import card_widths, order_clockwise, quad_is_sane
from vision.train.loop import (
    Schedule,
    checkpoint,
    conv_block,
    export_batched,
    quantize_convs,
    read_scene,
    resume,
    stream_loader,
)

MIN_VISIBLE = 0.15  # the detector's own target rule for whole cards


class RefinerNet(nn.Module):
    """``(n, 3, 96, 96)`` patches in [0, 1] → ``(n, 8)`` corner offsets (~20 M MACs)."""

    def __init__(self, width: tuple[int, ...] = (16, 32, 64, 128)) -> None:
        super().__init__()
        c0, c1, c2, c3 = width
        self.features = nn.Sequential(
            conv_block(3, c0, 2),  # 48
            conv_block(c0, c1, 2),  # 24
            conv_block(c1, c1),
            conv_block(c1, c2, 2),  # 12
            conv_block(c2, c2),
            conv_block(c2, c3, 2),  # 6
        )
        side = PATCH_SIZE // 16
        # Flatten, not pool: where an edge lies is the answer.
        self.head = nn.Sequential(
            nn.Flatten(), nn.Linear(c3 * side * side, 256), nn.ReLU(inplace=True), nn.Linear(256, 8)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the network's output for a batch of inputs (see the class)."""
        return self.head(self.features(x))


def card_width(quad: np.ndarray) -> float:
    """The card's short side in pixels (mean of the two shorter opposite edges)."""
    return float(card_widths(quad[None])[0])


def disturb(truth: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Return a rough outline around ``truth`` (clockwise) with the detector's kind of error."""
    w = card_width(truth)
    c = truth.mean(axis=0)
    for _ in range(20):
        big = rng.random() < 0.7
        s = math.exp(rng.normal(0, 0.15 if big else 0.04))
        a = math.radians(rng.normal(0, 10 if big else 2))
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) * s
        shift = rng.normal(0, 0.12 if big else 0.03, 2) * w
        jitter = rng.normal(0, 0.10 if big else 0.03, (4, 2)) * w
        q = ((truth - c) @ rot.T + c + shift + jitter).astype(np.float32)
        if quad_is_sane(q, min_side=3.0):
            return q
    return truth.astype(np.float32)


def align(rough: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Return ``truth`` rolled so that corner k is the one rough corner k stands for."""
    best = min(range(4), key=lambda r: float(np.linalg.norm(np.roll(truth, -r, 0) - rough)))
    return np.roll(truth, -best, axis=0)


def _photometric(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    x: np.ndarray = patch.astype(np.float32)
    x = x * rng.uniform(0.7, 1.3, 3) + rng.normal(0, 12)
    if rng.random() < 0.2:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.5, 1.5))
    if rng.random() < 0.3:
        x = x + rng.normal(0, rng.uniform(2, 8), x.shape)
    return np.clip(x, 0, 255).astype(np.uint8)


def pile_outline(truth: np.ndarray, below: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Return a rough outline of the card ``truth`` lying on the card ``below`` (a pile) that
    takes some corners from the lower card, as the detector's outline of a pile does (it
    is drawn round both), disturbed a little."""
    below = align(truth, below)
    take = rng.random(4) < 0.5
    if take.all() or not take.any():
        take[int(rng.integers(4))] = not take[0]
    mixed = np.where(take[:, None], below, truth).astype(np.float32)
    w = card_width(truth)
    q = mixed + rng.normal(0, 0.02, (4, 2)).astype(np.float32) * w
    return q if quad_is_sane(q, min_side=3.0) else mixed


def scene_cards(truth_file: Path) -> tuple[Path, list[np.ndarray], list[np.ndarray | None]]:
    """Return a rendered scene's image, the true outlines of its face-up cards and, for each,
    the outline of a card lying just under it, or None (a pile: every corner within 40% of a
    card's width of the top card's)."""
    t = json.loads(truth_file.read_text())
    image = truth_file.parent.parent.parent / t["image"]
    every = [order_clockwise(np.array(c["corners"], np.float32)) for c in t["cards"]]
    cards, below = [], []
    for i, c in enumerate(t["cards"]):  # bottom to top, as drawn
        if not (c["face_up"] and c["code"] is not None and c["visible"] >= MIN_VISIBLE):
            continue
        q, w = every[i], card_width(every[i])
        near = [u for u in every[:i] if np.linalg.norm(align(q, u) - q, axis=1).max() < 0.4 * w]
        cards.append(q)
        below.append(near[-1] if near else None)
    return image, cards, below


PILE_SHARE = 0.5  # of the samples of a card on a pile, how many start from a pile's outline


def samples_of(
    image: np.ndarray,
    cards: list[np.ndarray],
    rng: np.random.Generator,
    k: int,
    below: list[np.ndarray | None] | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield ``k`` (patch, offsets) samples of random cards of one scene; a card lying on a
    pile (``below``) is often given an outline drawn partly round the card under it."""
    pyr = Pyramid(image)
    for idx in rng.choice(len(cards), size=min(k, len(cards)), replace=False):
        truth = cards[int(idx)]
        under = below[int(idx)] if below is not None else None
        if under is not None and rng.random() < PILE_SHARE:
            rough = pile_outline(truth, under, rng)
        else:
            rough = disturb(truth, rng)
        rough = np.roll(rough, -int(rng.integers(4)), axis=0)
        target = patch_offsets(rough, align(rough, truth))
        yield _photometric(cut_patch(pyr, rough), rng), target.reshape(8)


class SceneStream(IterableDataset):
    """An endless, shuffled stream of ``(patch, offsets)`` from rendered scenes."""

    def __init__(self, data: Path, seed: int, per_scene: int = 6, buffer: int = 512) -> None:
        self.data, self.seed, self.per_scene, self.buffer = data, seed, per_scene, buffer
        self.skipped: set[Path] = set()

    def __iter__(self):
        cv2.setNumThreads(1)
        rng = np.random.default_rng([self.seed, int(time.time() * 1e3) % 100000])
        pool: list = []
        while True:
            files = sorted((self.data / "truth" / "train").glob("*.json"))
            random.Random(int(rng.integers(1 << 30))).shuffle(files)
            for f in files:
                image_path, cards, below = scene_cards(f)
                image = read_scene(image_path, self.skipped)
                if image is None or not cards:
                    continue
                pool.extend(samples_of(image, cards, rng, self.per_scene, below))
                while len(pool) > self.buffer:
                    j = int(rng.integers(len(pool)))
                    patch, target = pool[j]
                    pool[j] = pool[-1]
                    pool.pop()
                    yield (
                        torch.from_numpy(np.ascontiguousarray(patch.transpose(2, 0, 1))),
                        torch.from_numpy(target),
                    )


def validation_set(
    data: Path, cache: Path, size: int = 1500, log: Callable[[str], Any] = print
) -> tuple[np.ndarray, ...]:
    """Return fixed ``(patches, targets, rough, truth)`` from the val scenes."""
    if cache.is_file():
        z = np.load(cache)
        return z["x"], z["y"], z["rough"], z["truth"]
    rng = np.random.default_rng(777)
    xs, ys, roughs, truths = [], [], [], []
    skipped: set[Path] = set()
    files = sorted((data / "truth" / "val").glob("*.json"))
    files = files or sorted((data / "truth" / "train").glob("*.json"))  # a tiny build
    for f in files:
        image_path, cards, _ = scene_cards(f)
        image = read_scene(image_path, skipped, log)
        if image is None or not cards:
            continue
        pyr = Pyramid(image)
        for truth in cards:
            rough = disturb(truth, rng)
            xs.append(cut_patch(pyr, rough))
            ys.append(patch_offsets(rough, align(rough, truth)).reshape(8))
            roughs.append(rough)
            truths.append(align(rough, truth))
        if len(xs) >= size:
            break
    arrays = tuple(np.stack(a) for a in (xs, ys, roughs, truths))
    np.savez_compressed(cache, x=arrays[0], y=arrays[1], rough=arrays[2], truth=arrays[3])
    return arrays


def corner_error(quads: np.ndarray, truths: np.ndarray) -> np.ndarray:
    """Per card: the largest corner distance in card widths."""
    d = np.linalg.norm(quads - truths, axis=2).max(axis=1)
    return d / card_widths(truths)


@torch.no_grad()
def evaluate(model: nn.Module, val: tuple[np.ndarray, ...]) -> dict:
    """Corner error before and after one and two refinements, on the validation cards."""
    x, _, rough, truth = val
    model.eval()
    out = []
    for i in range(0, len(x), 256):
        xb = torch.from_numpy(np.ascontiguousarray(x[i : i + 256].transpose(0, 3, 1, 2)))
        out.append(model(xb.float() / 255.0).numpy())
    model.train()
    pred = np.concatenate(out)
    once = apply_offsets(rough, pred)
    before, after = corner_error(rough, truth), corner_error(once, truth)
    return {
        "cards": len(x),
        "error_before_median": round(float(np.median(before)), 4),
        "error_after_median": round(float(np.median(after)), 4),
        "error_after_p90": round(float(np.percentile(after, 90)), 4),
        "within_5pct": round(float((after <= 0.05).mean()), 4),
    }


@dataclass
class RefinerConfig:
    """Settings of one refiner training run."""

    data: str  # a dataset folder from `kortbord dataset build` (truth/ and images/)
    out: str
    steps: int = 20000
    batch: int = 64
    lr: float = 2e-3
    workers: int = 1
    threads: int = 1
    seed: int = 0
    checkpoint_every: int = 250
    time_limit_s: float = 0.0  # the schedule ends when this much time has passed
    start_from: str | None = None


def train_refiner(config: RefinerConfig, log: Callable[[str], None] = print) -> Path:
    """Train (or resume) the outline refiner; return the path of the exported ONNX model."""
    out, data = Path(config.out), Path(config.data)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    model = RefinerNet()
    ckpt_path = out / "refiner_last.pt"
    if config.start_from and not ckpt_path.is_file():
        model.load_state_dict(torch.load(config.start_from, map_location="cpu")["model"])
        log(f"refiner: starting from {config.start_from}")
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=1e-4)
    step, spent = resume(ckpt_path, model, opt)
    if step:
        log(f"refiner: resuming at step {step}")
    val = validation_set(data, out / "refiner_val.npz", log=log)
    loader = stream_loader(SceneStream(data, config.seed + step), config.batch, config.workers, 8)
    sched = Schedule(config.lr, config.steps, config.time_limit_s, 0.03, spent)
    history = []
    it = iter(loader)
    while sched.progress(step) < 1.0:
        lr = sched.apply(opt, step)
        xb, yb = next(it)
        loss = F.smooth_l1_loss(model(xb.float() / 255.0), yb, beta=0.02)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        step += 1
        if step % 50 == 0:
            log(f"refiner step {step} loss {loss.item():.4f} lr {lr:.5f} {sched.elapsed():.0f}s")
        if step % config.checkpoint_every == 0 or sched.progress(step) >= 1.0:
            checkpoint(ckpt_path, model, opt, step, sched.elapsed())
            m = evaluate(model, val)
            m.update(step=step, seconds=round(sched.elapsed(), 1))
            history.append(m)
            log(f"refiner val {json.dumps(m)}")
    metrics = evaluate(model, val)
    (out / "refiner_metrics.json").write_text(
        json.dumps({"final": metrics, "history": history, "config": asdict(config)}, indent=1)
    )
    torch.save({"model": model.state_dict()}, out / "card_refiner.pt")
    plain = export_refiner(model, out / "card_refiner_float.onnx")
    # int8 reads as well (checked on the validation cards) at a quarter of the size.
    x = np.ascontiguousarray(val[0][:256].transpose(0, 3, 1, 2), np.float32) / 255.0
    feeds = [{"patches": x[i : i + 32]} for i in range(0, len(x), 32)]
    return quantize_convs(plain, out / "card_refiner.onnx", feeds)


def export_refiner(model: nn.Module, path: Path) -> Path:
    """Export ``model`` to ONNX (input ``patches`` float ``(n, 3, 96, 96)`` in [0, 1])."""
    return export_batched(model, (3, PATCH_SIZE, PATCH_SIZE), path, ("patches", "offsets"))
