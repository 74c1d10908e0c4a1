"""A real Kortbord server in a subprocess, for tests and the benchmark."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# How long a test waits for what it asked the server (or the app's threads: a camera's worker,
# another request) to do, in seconds: a busy two-core machine takes seconds over what an idle
# one does at once. Each wait ends as its condition holds, so only a failing test waits this
# long.
WAIT_S = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``kortbord serve`` on 127.0.0.1 with its own data folder; kill it, start it again."""

    def __init__(
        self,
        data: Path,
        port: int | None = None,
        extra: list[str] | None = None,
        env: dict[str, str] | None = None,
    ):
        self.env = env or {}
        self.data = Path(data)
        self.port = port or free_port()
        self.extra = extra or []
        self.proc: subprocess.Popen | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = WAIT_S) -> Server:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", **self.env}
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kortbord",
                "serve",
                "--data",
                str(self.data),
                "--port",
                str(self.port),
                *self.extra,
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}")
            try:
                self.get("/api/tables")
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def kill9(self) -> None:
        """Kill the server at once (SIGKILL): no clean-up of any kind."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.kill9()

    def request(self, method: str, path: str, body: Any = None, timeout: float = WAIT_S):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            conn.request(method, path, json.dumps(body) if body is not None else None, headers)
            r = conn.getresponse()
            data = r.read()
            return r.status, json.loads(data) if data else None
        finally:
            conn.close()

    def get(self, path: str):
        _, body = self.request("GET", path)
        return body

    def post(self, path: str, body: Any = None):
        return self.request("POST", path, body if body is not None else {})

    def post_bytes(self, path: str, data: bytes, content_type: str) -> int:
        """POST raw bytes (a picture); return the status."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT_S)
        try:
            conn.request("POST", path, data, {"Content-Type": content_type})
            r = conn.getresponse()
            r.read()
            return r.status
        finally:
            conn.close()


class EventReader:
    """A server-sent-events client: read snapshots from one stream."""

    def __init__(self, port: int, path: str, timeout: float = WAIT_S):
        self.path, self.timeout = path, timeout
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.conn.request("GET", path, headers={"Accept": "text/event-stream"})
        self.resp = self.conn.getresponse()
        if self.resp.status != 200:
            raise RuntimeError(f"events: HTTP {self.resp.status}")
        self.pings = 0  # keep-alives heard: the stream is open, nothing changed

    def next(self) -> dict[str, Any]:
        """Return the next snapshot the stream pushes, on this same connection (blocks, at
        most ``timeout`` seconds; keep-alives are counted and passed over)."""
        deadline = time.monotonic() + self.timeout
        event, data = "message", []
        while True:
            line = self.resp.fp.readline()
            if not line:
                raise EOFError("the event stream ended")
            line = line.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
            elif line == "" and data:
                if event == "snapshot":
                    return json.loads("".join(data))
                self.pings += event == "ping"
                event, data = "message", []
            if time.monotonic() > deadline:  # only keep-alives came (each 15 s)
                raise TimeoutError(f"{self.path}: no snapshot pushed in {self.timeout:.0f} s")

    def close(self) -> None:
        self.conn.close()
