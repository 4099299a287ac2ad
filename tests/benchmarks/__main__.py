"""Run every benchmark module (or those named on the command line: python -m tests.benchmarks core deck)."""

import importlib
import pkgutil
import sys
import time
import traceback

import tests.benchmarks as pkg


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if m.name.startswith("bench_"))
    if argv:
        names = [n for n in names if n.removeprefix("bench_") in argv or n in argv]
    failed = 0
    for name in names:
        print(f"== {name.removeprefix('bench_')} ==", flush=True)
        start = time.perf_counter()
        try:
            for line in importlib.import_module(f"tests.benchmarks.{name}").run():
                print("  " + line, flush=True)
        except Exception:
            failed += 1
            traceback.print_exc()
        print(f"  ({time.perf_counter() - start:.1f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
