"""`gen`: regenerate generated/, or check that it has not drifted."""

import argparse
import sys
import time
from pathlib import Path

from .emit import build_files, sm4_files, ublock_files, zuc_files

ROOT = Path(__file__).resolve().parents[1]


def cipher_sources():
    """Every cipher's C sources and their compiler flags (build_files.CipherSources)."""
    return [sm4_files.sources(), zuc_files.sources(), ublock_files.sources()]


def produce(options):
    """Every file of generated/: each cipher's own, then the build over all of them."""
    parts = [sm4_files.files(options), zuc_files.files(), ublock_files.files(),
             build_files.files(cipher_sources())]
    products = {}
    for part in parts:
        clash = products.keys() & part.keys()
        if clash:
            raise ValueError(f"two emitters produce {', '.join(sorted(clash))}")
        products.update(part)
    return {f"generated/{path}": text for path, text in products.items()}


def write(products, root):
    changed = 0
    for path, text in sorted(products.items()):
        target = root / path
        if target.exists() and target.read_text() == text:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        changed += 1
    stale = existing(root) - set(products)
    for path in sorted(stale):
        (root / path).unlink()
    return changed, stale


def existing(root):
    folder = root / "generated"
    return {str(p.relative_to(root)) for p in folder.rglob("*") if p.is_file()} if folder.exists() else set()


def check(products, root):
    """Paths whose checked-in text differs from what the generator makes now."""
    drift = [p for p, text in sorted(products.items())
             if not (root / p).exists() or (root / p).read_text() != text]
    drift += sorted(f"{p} (not produced by the generator)" for p in existing(root) - set(products))
    return drift


def main(argv=None):
    parser = argparse.ArgumentParser(prog="gen", description=__doc__)
    parser.add_argument("command", nargs="?", default="generate", choices=("generate", "check"))
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this checkout)")
    parser.add_argument("--sm4-decomposition", type=int, default=None, metavar="N",
                        help="use S-box decomposition #N (of the 2040 found) instead of the preferred one")
    args = parser.parse_args(argv)
    start = time.monotonic()
    try:
        products = produce(sm4_files.Options(decomposition_index=args.sm4_decomposition))
    except ValueError as err:
        print(f"gen: {err}", file=sys.stderr)
        return 2
    if args.command == "check":
        drift = check(products, args.root)
        if drift:
            print("gen check: generated/ differs from what the generator produces now:", file=sys.stderr)
            for path in drift:
                print(f"  {path}", file=sys.stderr)
            print("run `gen` and commit the result", file=sys.stderr)
            return 1
        print(f"gen check: {len(products)} files up to date ({time.monotonic() - start:.1f} s)")
        return 0
    changed, stale = write(products, args.root)
    print(f"gen: {len(products)} files in generated/, {changed} rewritten, {len(stale)} removed "
          f"({time.monotonic() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
