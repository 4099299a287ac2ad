"""Benchmarks: `make bench` runs every bench_*.py module's run() and prints its lines.

They measure and report ratios against baselines measured in the same run; they never
pass or fail (CI does not run them)."""
