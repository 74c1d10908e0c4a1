"""Run every ``bench/bench_*.py`` module's ``main()`` in turn (``python -m bench``)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import bench


def main() -> int:
    """Run all benchmark modules in name order; return 1 if any of them failed."""
    failed = []
    names = sorted(
        m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_")
    )
    for name in names:
        print(f"== bench.{name}", flush=True)
        start = time.perf_counter()
        try:
            module = importlib.import_module(f"bench.{name}")
            rc = module.main()
        except Exception as e:  # one broken benchmark must not hide the others' figures
            print(f"bench.{name} failed: {type(e).__name__}: {e}", file=sys.stderr)
            rc = 1
        print(f"== bench.{name} took {time.perf_counter() - start:.1f} s", flush=True)
        if rc:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
