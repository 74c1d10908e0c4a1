"""The referee is pure: importing it must not pull in pixels, HTTP or tensors."""

import subprocess
import sys

from referee import GAMES


def test_referee_imports_no_vision_web_or_torch():
    modules = ["referee", "referee.simulate", "referee.cli"] + [
        target.split(":")[0] for target in GAMES.values()
    ]
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "heavy = ('cv2', 'flask', 'numpy', 'torch', 'onnxruntime')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_command_line_is_built_without_opencv_or_numpy():
    # kortbord simulate needs neither; each command's module loads them in its own func
    code = (
        "import sys\n"
        "from kortbord.cli import build_parser\n"
        "build_parser().parse_args(['simulate', 'sten'])\n"
        "print(','.join(m for m in ('cv2', 'numpy', 'torch', 'onnxruntime') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
