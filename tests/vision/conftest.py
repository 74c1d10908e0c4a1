"""Builders shared by the vision tests."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest


def card_quad(cx, cy, w, h, deg):
    """Return the clockwise TL, TR, BR, BL corners of a w×h card centred at (cx, cy), turned."""
    a = np.deg2rad(deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    base = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
    return (base @ rot.T + [cx, cy]).astype(np.float32)


class Pipes:
    """Named pipes (FIFOs) in a folder, each with a helper thread that opens it for writing
    whenever something waits to read it, writes its ``content`` and closes it: code that
    reads a pipe as a file would otherwise wait for a writer for ever, and hang the tests
    rather than fail them. ``waited[path]`` counts the readers that waited on it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.waited: dict[Path, int] = {}
        self._stop = threading.Event()
        self._helpers: list[threading.Thread] = []

    def __call__(self, name: str = "pipe.png", content: bytes = b"") -> Path:
        """Make the pipe ``name``; return its path."""
        path = self.folder / name
        os.mkfifo(path)
        self.waited[path] = 0

        def write_to_readers() -> None:
            while not self._stop.wait(0.05):
                try:
                    fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                except OSError:  # nobody reads it now
                    continue
                self.waited[path] += 1
                try:
                    os.write(fd, content)
                except OSError:  # the reader went away
                    pass
                os.close(fd)

        self._helpers.append(threading.Thread(target=write_to_readers, daemon=True))
        self._helpers[-1].start()
        return path

    def close(self) -> None:
        """Stop the helper threads."""
        self._stop.set()
        for helper in self._helpers:
            helper.join()


@pytest.fixture
def make_pipe(tmp_path):
    """Return :class:`Pipes` in ``tmp_path``: ``make_pipe(name, content=b"")``."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    pipes = Pipes(tmp_path)
    yield pipes
    pipes.close()
