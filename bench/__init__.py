"""Benchmarks, not timed tests: `make bench` runs each bench/bench_*.py module's main()."""


def percentile(values: list[float], q: float) -> float:
    """Return the ``q`` quantile (0–1) of ``values`` by nearest rank; ``values`` not empty."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]
