"""Benchmarks (``bench/*.py``), the corpora and question sets they run on, and tuning tools: run each from the
checkout's root as ``python -m bench.NAME`` (see ``bench/README.md``).

``BENCH_CODE=<another checkout>`` makes the benchmarks that compare before/after import that checkout's
``haiku_tui`` instead of this one's.
"""

import os
import sys

if os.environ.get("BENCH_CODE"):
    sys.path.insert(0, os.environ["BENCH_CODE"])
