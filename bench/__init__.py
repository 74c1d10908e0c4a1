"""Benchmarks, not timed tests: `make bench` runs each bench/bench_*.py module's main()."""
