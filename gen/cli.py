"""`gen`: regenerate generated/, check that it has not drifted, or check that
every kernel program it emits is constant-time (ct-check)."""

import argparse
import sys
import time
from pathlib import Path

from .backends import SIMD_TARGETS, kernels
from .emit import build_files, sm4_files, ublock_files, zuc_files, zuc_kernel_files
from .emit.bodies import KernelBodies
from .ir import ct_check

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


def kernel_emitters(options):
    """Per cipher, the emitter function that writes one kernel's C file from
    (strategy, target)."""
    return {"sm4": lambda strategy, target: sm4_files.kernel_file(strategy, target, options),
            "zuc": zuc_kernel_files.kernel_file,
            "ublock": lambda strategy, target: ublock_files.kernel_file(strategy, target, [])}


def emitted_programs(cipher, strategy, target, options):
    """Every lowered program that `cipher`'s emitter writes for the kernel
    (strategy, target), in its order (emitted_functions)."""
    return [program for _, program in emitted_functions(cipher, strategy, target, options)]


def emitted_functions(cipher, strategy, target, options):
    """(KernelBodies, lowered program) of every kernel function `cipher`'s
    emitter writes for the kernel (strategy, target), in its order.  They are
    recorded where each becomes a function body, KernelBodies
    (gen/emit/bodies.py: C statements, or for an assembly twin a call into its
    .S, whose symbols its `functions` then list), while the emitter writes the
    file: so the list is exactly what generated/ holds (plain and
    xor_into_stores forms, ZUC's init and keystream functions, uBlock's
    variants, directions and counter forms), without a second copy of each
    emitter's choices."""
    recorded = []
    original = KernelBodies.__call__

    def recording(self, program, name):
        recorded.append((self, program))
        return original(self, program, name)

    KernelBodies.__call__ = recording
    try:
        kernel_emitters(options)[cipher](strategy, target)
    finally:
        KernelBodies.__call__ = original
    return recorded


def check_constant_time(options):
    """ct-check: every emitted kernel program of every target, every
    architecture, through the static constant-time check (gen/ir/ct_check.py)."""
    start = time.monotonic()
    checked, failed = {}, 0
    for cipher in kernel_emitters(options):
        for strategy, name in kernels(cipher):
            target = SIMD_TARGETS[name]
            programs = emitted_programs(cipher, strategy, target, options)
            if not programs:  # nothing seen is nothing checked: the recording point has moved
                print(f"gen ct-check: {cipher}_{strategy}_{name}: no program recorded (does its emitter "
                      f"still write its bodies through KernelBodies?)", file=sys.stderr)
                failed += 1
            for number, program in enumerate(programs, 1):
                checked[target.arch.name] = checked.get(target.arch.name, 0) + 1
                violations = ct_check.check(program)
                failed += bool(violations)
                for violation in violations:
                    print(f"gen ct-check: {cipher}_{strategy}_{name}, program {number} ({program.name}): {violation}",
                          file=sys.stderr)
    per_arch = ", ".join(f"{count} {arch}" for arch, count in checked.items())
    verdict = f"{failed} failed" if failed else "no secret-dependent address, loop bound, branch or opcode"
    print(f"gen ct-check: {sum(checked.values())} kernel programs ({per_arch}): {verdict} "
          f"({time.monotonic() - start:.1f} s)")
    return 1 if failed else 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="gen", description=__doc__)
    parser.add_argument("command", nargs="?", default="generate", choices=("generate", "check", "ct-check"))
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this checkout)")
    parser.add_argument("--sm4-decomposition", type=int, default=None, metavar="N",
                        help="use S-box decomposition #N (of the 2040 found) instead of the preferred one")
    args = parser.parse_args(argv)
    if args.command == "ct-check":
        try:
            return check_constant_time(sm4_files.Options(decomposition_index=args.sm4_decomposition))
        except ValueError as err:
            print(f"gen: {err}", file=sys.stderr)
            return 2
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
