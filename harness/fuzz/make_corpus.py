#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets: harness/fuzz/corpus/<target>/.

    python3 harness/fuzz/make_corpus.py [--out harness/fuzz/corpus]

Deterministic (a fixed random seed per file), so re-running it rewrites the
same files.  The targets read decisions from the front of an input and
message bytes from its back (fuzz_util.h); a seed is the first decision
bytes that pick each operation, mode, variant or case of its target, then
random bytes, so that every path the target has is in the corpus from the
start and libFuzzer mutates from there.  fuzz_kcrypt's raw-argument seeds
spell real command lines (the ones in docs/cli.md) in the target's own
encoding, with their stdin at the back.
"""

import argparse
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent


def seed(rng, head, tail_len=None):
    """The decision bytes `head`, then random bytes."""
    n = rng.randrange(24, 200) if tail_len is None else tail_len
    return bytes(head) + rng.randbytes(n)


def mode_byte(mode, enc, nth=0):
    """fuzz_sm4's and fuzz_ublock's second byte for (mode, encrypt): mode
    = byte % 3, encrypt = bit 2; the nth such value."""
    return [v for v in range(256) if v % 3 == mode and (v >> 2) & 1 == enc][nth]


def sm4_seeds():
    """First byte: 15 mod 16 for the out-of-range enums, else the modes."""
    rng = random.Random(4)
    out = {}
    for mode, name in enumerate(("ecb", "cbc", "ctr")):
        for enc in (0, 1):
            for k in range(3):
                out[f"{name}-{'enc' if enc else 'dec'}-{k}"] = seed(rng, [k, mode_byte(mode, enc, k)])
    for k in range(4):
        out[f"bad-enums-{k}"] = seed(rng, [15 + 16 * k, k])
    return out


def ublock_seeds():
    """First byte mod 16: 15 the out-of-range enums, 12-14 many keys, else
    one key; second the mode; third the variant."""
    rng = random.Random(5)
    out = {}
    for variant in range(3):
        for mode, name in enumerate(("ecb", "cbc", "ctr")):
            for enc in (0, 1):
                out[f"v{variant}-{name}-{'enc' if enc else 'dec'}"] = seed(rng, [0, mode_byte(mode, enc), variant])
            out[f"v{variant}-multi-{name}"] = seed(rng, [12 + mode, mode_byte(mode, 1), variant])
        out[f"v{variant}-bad-enums"] = seed(rng, [15, 0, variant])
    return out


def zuc_seeds():
    rng = random.Random(6)
    out = {}
    for form, name in enumerate(("zuc128", "zuc256-iv25", "zuc256-iv23")):
        out[f"{name}-eea"] = seed(rng, [0, form])
        out[f"{name}-eea-long"] = seed(rng, [2, form], 600)
        out[f"{name}-mac"] = seed(rng, [1, form])
        out[f"{name}-mac-long"] = seed(rng, [3, form], 600)
        out[f"{name}-lanes"] = seed(rng, [7, form])
        out[f"{name}-lanes-many"] = seed(rng, [15, form], 400)
        out[f"{name}-kernel"] = seed(rng, [5, form], 400)
    return out


def zuc_bits_seeds():
    rng = random.Random(7)
    names = ("encrypt-huge", "eea-refusals", "mac-huge", "mac-limit", "short-bits", "bad-params")
    out = {}
    for op, name in enumerate(names):
        for k in range(4):
            out[f"{name}-{k}"] = seed(rng, [op + 6 * k])
    return out


def kcrypt_raw(args, stdin=b""):
    """fuzz_kcrypt's raw encoding of `kcrypt ARGS < stdin`: kind 7, a length
    (fz_length's first case: its byte then the length mod 70), the argument
    count and each argument (its length, then its bytes); stdin at the back,
    reversed (fz_data reads the input from its end)."""
    assert len(stdin) < 70 and len(args) < 13
    head = [7, 1, 0, len(stdin), len(args)]
    for a in args:
        b = a.encode()
        assert len(b) < 96
        head += [len(b), *b]
    return bytes(head) + bytes(reversed(stdin))


def kcrypt_seeds():
    rng = random.Random(8)
    key16 = "0123456789abcdeffedcba9876543210"
    key32 = key16 * 2
    iv16 = "000102030405060708090a0b0c0d0e0f"
    iv25 = "00" * 17 + "3f" * 8
    iv23 = "00" * 23
    text = b"The quick brown fox jumps over the lazy dog."
    out = {
        "raw-sm4-ctr": kcrypt_raw(["sm4", "ctr", "-e", "-k", key16, "-i", iv16], text),
        "raw-sm4-cbc-dec": kcrypt_raw(["sm4", "cbc", "-d", "-k", key16, "-i", iv16, "-t", "avx2_vaes",
                                       "-s", "byteslice"], text[:32]),
        "raw-sm4-ecb-partial": kcrypt_raw(["sm4", "ecb", "-e", "-k", key16], text[:20]),
        "raw-zuc256-enc": kcrypt_raw(["zuc256", "enc", "-k", key32, "-i", iv25], text),
        "raw-zuc256-mac": kcrypt_raw(["zuc256", "mac", "-k", key32, "-i", iv23, "--tag", "64"], text),
        "raw-zuc128-bits": kcrypt_raw(["zuc128", "enc", "-k", key16, "-i", iv16, "--bits", "13"], text),
        "raw-zuc128-bits-max": kcrypt_raw(["zuc128", "mac", "-k", key16, "-i", iv16, "--bits",
                                           "18446744073709551615"], text),
        "raw-zuc128-mac-method": kcrypt_raw(["zuc128", "mac", "-k", key16, "-i", iv16, "--mac-method",
                                             "compare"], text),
        "raw-ublock128-ctr": kcrypt_raw(["ublock128_128", "ctr", "-e", "-k", key16, "-i", iv16], text),
        "raw-ublock256-cbc": kcrypt_raw(["ublock256_256", "cbc", "-d", "-k", key32, "-i", key32,
                                         "-t", "avx2", "-s", "register"], text[:32]),
        "raw-list-targets": kcrypt_raw(["--list-targets", "sm4"]),
        "raw-list-impls": kcrypt_raw(["--list-impls"]),
        "raw-help": kcrypt_raw(["--help"]),
        "raw-empty": kcrypt_raw([]),
    }
    for kind in range(7):
        for k in range(2):
            out[f"model-{kind}-{k}"] = seed(rng, [kind + 8 * k])
    return out


TARGETS = {
    "fuzz_sm4": sm4_seeds,
    "fuzz_ublock": ublock_seeds,
    "fuzz_zuc": zuc_seeds,
    "fuzz_zuc_bits": zuc_bits_seeds,
    "fuzz_kcrypt": kcrypt_seeds,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE / "corpus")
    args = ap.parse_args()
    for target, make in TARGETS.items():
        folder = args.out / target
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        seeds = make()
        for name, data in seeds.items():
            (folder / name).write_bytes(data)
        print(f"{folder}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
