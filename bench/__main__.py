"""Run every ``bench/bench_*.py`` module's ``main()`` in turn (``python -m bench``), or the ones
named (``python -m bench bench_referee bench_web``), each with its default settings; a
module's own settings: ``python -m bench.bench_pipeline --help``."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import bench


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark modules named (all by default) in name order; return 1 if any of them
    failed, 2 for a name that is none."""
    failed = []
    names = sorted(
        m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_")
    )
    asked = sys.argv[1:] if argv is None else argv
    if {"-h", "--help"} & set(asked):  # it was taken for a benchmark's name
        print(f"usage: python -m bench [NAME ...]\n\n{__doc__}\nthe benchmarks: {', '.join(names)}")
        return 0
    unknown = [a for a in asked if a not in names]
    if unknown:
        print(f"no benchmark {unknown[0]!r}; the benchmarks: {', '.join(names)}", file=sys.stderr)
        return 2
    for name in sorted(asked) or names:
        print(f"== bench.{name}", flush=True)
        start = time.perf_counter()
        try:
            module = importlib.import_module(f"bench.{name}")
            rc = module.main([])  # its defaults: the runner's arguments are not its own
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
