#!/usr/bin/env python3
"""plot_bench.py JSON PNG: the benchmark plot alone (per cipher: Gbit/s vs
message size of SM4-CTR or ZUC enc, and Gbit/s per mode at the headline
size).  The full report, markdown included, is harness/report.py, which
`build/bench --json FILE` runs by itself."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    report.plot(report.load_records(argv[0]), argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
