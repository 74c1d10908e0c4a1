"""Train the corner classifier (torch) on crops drawn on the fly, and export it to ONNX.

Checkpoints every few hundred steps to ``OUT/classifier_last.pt``; running again with the same
``OUT`` resumes where it stopped.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import IterableDataset

from vision.crops import DEFAULT_SPEC, CropSpec
from vision.recognizer import CLASS_NAMES, CLASSIFIER_FILE
from vision.train.crops import CropSampler, SamplerConfig
from vision.train.loop import (
    Schedule,
    checkpoint,
    conv_block,
    export_batched,
    quantize_convs,
    resume,
    stream_loader,
)

VAL_STYLES = tuple(range(1000, 1012))  # procedural styles never seen in training
VAL_SKIPBO = (1000, 1001)


class CornerNet(nn.Module):
    """A small CNN: ``(n, 3, 48, 40)`` crops in [0, 1] → ``(n, C)`` logits (~16 M MACs)."""

    def __init__(
        self, num_classes: int = len(CLASS_NAMES), width: tuple[int, ...] = (24, 40, 72, 128)
    ):
        super().__init__()
        c0, c1, c2, c3 = width
        self.features = nn.Sequential(
            conv_block(3, c0, 2),  # 24×20
            conv_block(c0, c1),
            nn.MaxPool2d(2),  # 12×10
            conv_block(c1, c2),
            conv_block(c2, c2),
            nn.MaxPool2d(2),  # 6×5
            conv_block(c2, c3),
            conv_block(c3, c3),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(c3 * 6 * 5, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the network's output for a batch of inputs (see the class)."""
        return self.head(self.features(x))


class CropStream(IterableDataset):
    """An endless stream of ``(crop, label)`` tensors; each worker draws from its own seed."""

    def __init__(self, config: SamplerConfig, seed: int, spec: CropSpec = DEFAULT_SPEC) -> None:
        self.config, self.seed, self.spec = config, seed, spec

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        wid = info.id if info else 0
        sampler = CropSampler(self.config, self.spec)
        rng = np.random.default_rng([self.seed, wid, int(time.time() * 1e3) % 100000])
        while True:
            crop, label = sampler.sample(rng)
            yield torch.from_numpy(np.ascontiguousarray(crop.transpose(2, 0, 1))), label


@dataclass
class ClassifierConfig:
    """Settings of one classifier training run."""

    out: str
    deck_dirs: tuple[str, ...] = ()
    steps: int = 6000
    batch: int = 256
    lr: float = 3e-3
    workers: int = 1
    device: str = "cpu"
    threads: int = 2
    seed: int = 0
    val_size: int = 2000
    checkpoint_every: int = 250
    time_limit_s: float = 0.0  # stop (after a checkpoint) once this much time has passed
    start_from: str | None = None  # weights to start from (e.g. models/card_classifier.pt)
    real_photos: str | None = None  # labelled real photos (ranks, some suits) to learn from too
    outline_models: str | None = None  # where the detector and refiner for those photos are
    real_batch: int = 32
    real_weight: float = 0.5
    # What the network reads: index corners (the default) or whole small cards (THUMB_SPEC).
    spec: CropSpec = DEFAULT_SPEC
    width_px: tuple[float, float] = (34.0, 330.0)
    onnx_name: str = CLASSIFIER_FILE
    # Index corners cut from whole rendered scenes of this layout ("road"), mixed into each
    # batch at scene_share (vision.train.scene_crops); None: the crop sampler's alone.
    scene_crops: str | None = None
    scene_share: float = 0.5
    scene_count: int = 500
    scene_val_count: int = 40  # scenes of another seed whose crops validate


def validation_set(config: ClassifierConfig) -> tuple[np.ndarray, np.ndarray]:
    """Return a fixed validation set of crops from procedural styles never used in training."""
    cache = Path(config.out) / "classifier_val.npz"
    if cache.is_file():
        z = np.load(cache)
        return z["x"], z["y"]
    sampler = CropSampler(
        SamplerConfig(
            style_ids=VAL_STYLES,
            skipbo_ids=VAL_SKIPBO,
            deck_dirs=config.deck_dirs,
            width_px=config.width_px,
        ),
        config.spec,
    )
    rng = np.random.default_rng(12345)
    xs, ys = zip(*(sampler.sample(rng) for _ in range(config.val_size)), strict=True)
    x, y = np.stack(xs), np.array(ys, np.int64)
    np.savez_compressed(cache, x=x, y=y)
    return x, y


def _to_input(x: torch.Tensor) -> torch.Tensor:
    return x.float() / 255.0


@torch.no_grad()
def evaluate(model: nn.Module, x: np.ndarray, y: np.ndarray, device: str) -> dict:
    """Return accuracy figures of ``model`` on crops ``x`` (n, h, w, 3) with labels ``y``."""
    model.eval()
    preds = []
    for i in range(0, len(x), 512):
        xb = torch.from_numpy(np.ascontiguousarray(x[i : i + 512].transpose(0, 3, 1, 2))).to(device)
        preds.append(model(_to_input(xb)).argmax(1).cpu().numpy())
    model.train()
    p = np.concatenate(preds)
    bg = len(CLASS_NAMES) - 1
    card = y != bg
    return {
        "accuracy": float((p == y).mean()),
        "card_accuracy": float((p[card] == y[card]).mean()) if card.any() else 0.0,
        "background_recall": float((p[~card] == bg).mean()) if (~card).any() else 0.0,
        "card_as_background": float((p[card] == bg).mean()) if card.any() else 0.0,
    }


def train_classifier(config: ClassifierConfig, log: Callable[[str], None] = print) -> Path:
    """Train (or resume) the corner classifier; return the path of the exported ONNX model."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    device = config.device
    model = CornerNet()
    x_val, y_val = validation_set(config)
    if config.start_from and not (out / "classifier_last.pt").is_file():
        if Path(config.start_from).suffix == ".onnx":  # an exported file: its int8 weights
            load_onnx_classifier(model, config.start_from, x_val[:512])
        else:
            model.load_state_dict(torch.load(config.start_from, map_location="cpu")["model"])
        log(f"classifier: starting from {config.start_from}")
    model = model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=5e-4)
    ckpt_path = out / "classifier_last.pt"
    step, spent = resume(ckpt_path, model, opt, device)
    if step:
        log(f"classifier: resuming at step {step} of {config.steps}")
    scenes = _scene_crops(config, log) if config.scene_crops else None
    from_scenes = round(config.batch * config.scene_share) if scenes else 0
    sampler_cfg = SamplerConfig(deck_dirs=config.deck_dirs, width_px=config.width_px)
    loader = stream_loader(
        CropStream(sampler_cfg, config.seed + step, config.spec),
        config.batch - from_scenes,
        config.workers,
        4,
    )
    draw = np.random.default_rng([config.seed, step])
    real = _real_batches(config, step, log) if config.real_photos else None
    sched = Schedule(config.lr, config.steps, config.time_limit_s, 0.05, spent)
    history = []
    it = iter(loader)
    while sched.progress(step) < 1.0:
        lr = sched.apply(opt, step)
        xb, yb = next(it)
        if scenes is not None:
            pick = draw.integers(len(scenes["y"]), size=from_scenes)
            xs = torch.from_numpy(np.ascontiguousarray(scenes["x"][pick].transpose(0, 3, 1, 2)))
            xb, yb = torch.cat([xb, xs]), torch.cat([yb, torch.from_numpy(scenes["y"][pick])])
        xb, yb = _to_input(xb.to(device, non_blocking=True)), yb.to(device)
        loss = F.cross_entropy(model(xb), yb, label_smoothing=0.05)
        if real is not None:
            from vision.train.real_crops import partial_label_loss

            xr, allowed = next(real["batches"])
            logits = model(_to_input(xr.to(device)))
            loss = loss + config.real_weight * partial_label_loss(logits, allowed.to(device))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        step += 1
        if step % 50 == 0:
            log(f"classifier step {step} loss {loss.item():.3f} lr {lr:.5f} {sched.elapsed():.0f}s")
        done = sched.progress(step) >= 1.0
        if step % config.checkpoint_every == 0 or done:
            checkpoint(ckpt_path, model, opt, step, sched.elapsed())
            m = evaluate(model, x_val, y_val, device)
            if scenes is not None:
                m["scenes"] = evaluate(model, scenes["x_val"], scenes["y_val"], device)
            m.update(step=step, seconds=round(sched.elapsed(), 1))
            history.append(m)
            log(f"classifier val {json.dumps(m)}")
    metrics = evaluate(model, x_val, y_val, device)
    if scenes is not None:
        metrics["scenes"] = evaluate(model, scenes["x_val"], scenes["y_val"], device)
    (out / "classifier_metrics.json").write_text(
        json.dumps({"final": metrics, "history": history, "config": asdict(config)}, indent=1)
    )
    plain = export_classifier(
        model, out / config.onnx_name.replace(".onnx", "_float.onnx"), config.spec
    )
    # int8 convolutions read the validation crops as well, at a quarter of the size.
    x = np.ascontiguousarray(x_val[:512].transpose(0, 3, 1, 2), np.float32) / 255.0
    feeds = [{"crops": x[i : i + 64]} for i in range(0, len(x), 64)]
    return quantize_convs(plain, out / config.onnx_name, feeds)


def _scene_crops(config: ClassifierConfig, log: Callable[[str], None] = print) -> dict:
    """Return the index-corner crops of rendered scenes to train on (``x``, ``y``) and to
    validate on (``x_val``, ``y_val``: scenes of another seed), rendered once into ``out``."""
    from vision.train.scene_crops import (
        VAL_SEED,
        SceneCropConfig,
        cache_name,
        cached_scene_crops,
    )

    assert config.scene_crops, "asked for only with a layout"
    found = {}
    for key, cfg in (
        ("", SceneCropConfig(layout=config.scene_crops, scenes=config.scene_count)),
        (
            "_val",
            SceneCropConfig(
                layout=config.scene_crops, seed=VAL_SEED, scenes=config.scene_val_count, jitters=1
            ),
        ),
    ):
        path = Path(config.out) / cache_name(cfg)
        if not path.is_file():
            log(f"classifier: rendering {cfg.scenes} {cfg.layout} scenes' corner crops to {path}")
        x, y = cached_scene_crops(path, cfg, config.deck_dirs, config.spec, log)
        if not len(y):
            raise ValueError(f"no corner crops in the {cfg.layout} scenes of {path}")
        found["x" + key], found["y" + key] = x, y
    log(f"classifier: {len(found['y'])} corner crops of {config.scene_crops} scenes")
    return found


def _real_batches(config: ClassifierConfig, step: int, log=print) -> dict:
    """Find the real photos' cards with the detector and refiner in ``outline_models`` and
    return an endless iterator of their corner crops with the codes each may be."""
    from vision.realphotos import load_split, read_photos
    from vision.recognizer import Recognizer
    from vision.train.real_crops import RealCornerStream, find_real_cards

    assert config.real_photos, "asked for only with real photos"
    photos = load_split(config.real_photos, "train")
    unread: set[Path] = set()

    def skipped(photo, why) -> None:  # a cut-off photo would teach grey where bytes are missing
        log(f"classifier: real photos: skipped {photo.image}: {why}")
        unread.add(photo.image)

    rec = Recognizer(config.outline_models, threads=config.threads)
    cards = find_real_cards(read_photos(photos, skipped), rec)
    photos = [p for p in photos if p.image not in unread]
    suited = sum(len(c.classes) == 1 for c in cards)
    log(f"classifier: {len(cards)} real cards from {len(photos)} photos ({suited} with a suit)")
    if not cards:
        raise ValueError(f"no usable cards found in {config.real_photos}/train")
    stream = RealCornerStream(cards, config.seed + step, photos=photos)
    loader = stream_loader(stream, config.real_batch, 0)
    return {"batches": iter(loader)}


def onnx_weights(path: str | Path) -> dict[str, np.ndarray]:
    """Return the float weights of an exported classifier file, in the order its layers run:
    ``conv{k}.weight``/``conv{k}.bias`` (batch norms folded in) and ``head.weight``/``head.bias``;
    int8 weights (:func:`vision.train.loop.quantize_convs`) dequantized."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    values = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in graph.initializer}
    for node in graph.node:
        if node.op_type == "DequantizeLinear" and all(i in values for i in node.input):
            q, scale, *zero = (values[i] for i in node.input)
            axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
            shape = [1] * q.ndim
            if scale.size > 1:  # per channel
                shape[axis if q.ndim > 1 else 0] = -1
            zp = zero[0].reshape(shape) if zero else 0.0
            values[node.output[0]] = (q - zp) * scale.reshape(shape)
    weights: dict[str, np.ndarray] = {}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    for k, node in enumerate(convs):
        weights[f"conv{k}.weight"] = values[node.input[1]]
        weights[f"conv{k}.bias"] = values[node.input[2]]
    (gemm,) = (n for n in graph.node if n.op_type in ("Gemm", "MatMul"))
    transposed = any(a.name == "transB" and a.i for a in gemm.attribute)
    head = values[gemm.input[1]]
    weights["head.weight"] = head if transposed else head.T
    weights["head.bias"] = values[gemm.input[2]]
    return weights


@torch.no_grad()
def load_onnx_classifier(model: CornerNet, path: str | Path, x: np.ndarray) -> None:
    """Give ``model`` the weights of an exported classifier file (its checkpoint not kept).

    The file's convolutions hold their batch norms folded in. Each batch norm is given the
    mean and spread of its convolution's output on crops ``x`` ``(n, h, w, 3)`` as its
    running statistics, and a scale and shift that undo them: the model then computes what
    the file does (in eval mode exactly, but for the file's int8 activations), and a training
    batch, normalized by its own statistics, nearly so."""
    weights = onnx_weights(path)
    convs = [m for m in model.features.modules() if isinstance(m, nn.Conv2d)]
    norms = [m for m in model.features.modules() if isinstance(m, nn.BatchNorm2d)]
    if len(convs) != sum(k.endswith(".weight") for k in weights) - 1:
        raise ValueError(f"{path}: its layers are not the classifier's")
    seen: list[torch.Tensor] = []
    hooks = [c.register_forward_hook(lambda _m, _i, out: seen.append(out)) for c in convs]
    for k, (conv, norm) in enumerate(zip(convs, norms, strict=True)):
        conv.weight.copy_(torch.from_numpy(weights[f"conv{k}.weight"]))
        norm.running_mean.zero_()
        norm.running_var.fill_(1.0 - norm.eps)
        norm.weight.fill_(1.0)
        norm.bias.copy_(torch.from_numpy(weights[f"conv{k}.bias"]))
    linear = model.head[-1]
    linear.weight.copy_(torch.from_numpy(weights["head.weight"]))
    linear.bias.copy_(torch.from_numpy(weights["head.bias"]))
    was_training = model.training
    model.eval()
    model(_to_input(torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))))
    for h in hooks:
        h.remove()
    for k, (norm, out) in enumerate(zip(norms, seen, strict=True)):
        mean = out.mean(dim=(0, 2, 3))
        var = out.var(dim=(0, 2, 3), unbiased=False)
        norm.running_mean.copy_(mean)
        norm.running_var.copy_(var)
        norm.weight.copy_((var + norm.eps).sqrt())
        norm.bias.copy_(mean + torch.from_numpy(weights[f"conv{k}.bias"]).float())
    model.train(was_training)


def export_classifier(model: nn.Module, path: Path, spec: CropSpec = DEFAULT_SPEC) -> Path:
    """Export ``model`` to ONNX (input ``crops`` float ``(n, 3, h, w)`` in [0, 1])."""
    return export_batched(model, (3, spec.size[1], spec.size[0]), path, ("crops", "logits"))
