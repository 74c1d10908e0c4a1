"""What the small networks (classifier, refiner) share: their conv block, the schedule,
checkpoints, the data loader, the ONNX export and its int8 quantization."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vision.images import ImageError, read_image

if TYPE_CHECKING:  # torch is the train extra's
    from torch import nn, optim
    from torch.utils.data import DataLoader, IterableDataset


def conv_block(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    """3×3 convolution, batch norm, ReLU: the small networks' building block."""
    from torch import nn

    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


def read_scene(path: Path, skipped: set[Path], log: Callable[[str], Any] = print) -> Any:
    """Return the BGR image of a rendered scene, or None where it does not read whole (a run
    stopped while writing it: OpenCV would give its missing part grey to train on), said once
    a file (``skipped`` holds those said)."""
    try:
        return read_image(path)
    except ImageError as e:
        if path not in skipped:
            skipped.add(path)
            log(f"skipped {path}: {e}")
        return None


@dataclass
class Schedule:
    """Linear warm-up, then cosine decay to zero over ``steps`` or, when ``time_limit_s`` is
    set, over that many wall-clock seconds, whichever ends first.

    ``spent`` is the time an earlier run already used, so a resumed run ends on time.
    """

    lr: float
    steps: int
    time_limit_s: float = 0.0
    warmup: float = 0.05
    spent: float = 0.0
    t0: float = field(init=False)

    def __post_init__(self) -> None:
        self.t0 = time.time() - self.spent

    def elapsed(self) -> float:
        """Return the wall-clock seconds trained, earlier runs' included."""
        return time.time() - self.t0

    def progress(self, step: int) -> float:
        """Return how far training is at ``step`` (0–1), by steps or time, whichever is further."""
        p = step / self.steps
        if self.time_limit_s:
            p = max(p, self.elapsed() / self.time_limit_s)
        return min(p, 1.0)

    def rate(self, step: int) -> float:
        """Return the learning rate at ``step``."""
        p, w = self.progress(step), self.warmup
        return self.lr * (p / w if p < w else 0.5 * (1 + math.cos(math.pi * (p - w) / (1 - w))))

    def apply(self, optimizer: optim.Optimizer, step: int) -> float:
        """Set ``optimizer``'s learning rate for ``step``; return it."""
        lr = self.rate(step)
        for g in optimizer.param_groups:
            g["lr"] = lr
        return lr


def export_batched(
    model: nn.Module, input_shape: tuple[int, ...], path: Path, names: tuple[str, str]
) -> Path:
    """Export ``model`` to ONNX with a variable batch size; ``input_shape`` is one sample's
    ``(c, h, w)``, ``names`` the input's and output's names."""
    import torch

    model = model.cpu().eval()
    torch.onnx.export(
        model,
        (torch.zeros(1, *input_shape),),  # the model's arguments
        str(path),
        input_names=[names[0]],
        output_names=[names[1]],
        dynamic_axes={names[0]: {0: "n"}, names[1]: {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    return Path(path)


def resume(
    path: Path, model: nn.Module, optimizer: optim.Optimizer, device: str = "cpu"
) -> tuple[int, float]:
    """Load a checkpoint written by :func:`checkpoint` if there is one; return (step, seconds)."""
    import torch

    if not Path(path).is_file():
        return 0, 0.0
    ck = torch.load(path, map_location=device, weights_only=False)
    model.load_state_dict(ck["model"])
    optimizer.load_state_dict(ck["opt"])
    return int(ck["step"]), float(ck.get("seconds", 0.0))


def checkpoint(
    path: Path, model: nn.Module, optimizer: optim.Optimizer, step: int, seconds: float
) -> None:
    """Save what :func:`resume` needs to go on from ``step``."""
    import torch

    state = {"model": model.state_dict(), "opt": optimizer.state_dict(), "step": step}
    torch.save({**state, "seconds": seconds}, path)


def stream_loader(
    dataset: IterableDataset, batch: int, workers: int, prefetch: int = 4
) -> DataLoader:
    """Return a DataLoader over an endless stream, its samples made in ``workers`` processes
    (spawned, not forked: a forked child can hang in OpenCV's copied thread pool)."""
    from torch.utils.data import DataLoader

    return DataLoader(
        dataset,
        batch_size=batch,
        num_workers=workers,
        persistent_workers=workers > 0,
        prefetch_factor=prefetch if workers > 0 else None,
        multiprocessing_context="spawn" if workers > 0 else None,
    )


def quantize_convs(src: Path, dst: Path, inputs: list[dict]) -> Path:
    """Write ONNX model ``src`` to ``dst`` with its convolutions (and dense layers) quantized
    to int8 (QDQ, per channel), calibrated on ``inputs`` (feeds by input name). About 1.5×
    faster on a CPU with VNNI and a quarter of the size; everything else stays float, so a
    detector's scores and a refiner's offsets keep their range."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Feeds(CalibrationDataReader):
        def __init__(self) -> None:
            self.it = iter(inputs)

        def get_next(self):
            return next(self.it, None)

    prepared = Path(dst).with_suffix(".prep.onnx")
    quant_pre_process(str(src), str(prepared), skip_symbolic_shape=True)  # fold and fuse first
    quantize_static(
        str(prepared),
        str(dst),
        Feeds(),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        op_types_to_quantize=["Conv", "Gemm", "MatMul"],
    )
    prepared.unlink()
    return Path(dst)
