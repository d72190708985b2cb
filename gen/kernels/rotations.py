"""Linear layers made of 32-bit word rotations: x ^ rotl(x, r1) ^ rotl(x, r2) ...,
shared by the word-oriented kernels (SM4 word-sliced, ZUC's L1 and L2)."""

from collections import defaultdict


def rotation_plan(rotations):
    """Group L's rotations by amount mod 8: rotl(y,a)^rotl(y,a+8)^... =
    rotl(y ^ rotl(y,8) ^ ..., a), trading bit rotations for byte rotations
    (SM4, ZUC L1: rotl(y ^ rotl(y,8) ^ rotl(y,16), 2) ^ rotl(y,24))."""
    groups = defaultdict(list)
    for r in rotations:
        groups[r % 8].append(r)
    return [(base, [r - base for r in sorted(members)]) for base, members in sorted(groups.items())]


def linear_layer(b, y, rotations, hint):
    parts = [y]
    for base, offsets in rotation_plan(rotations):
        inner = [y if off == 0 else b.rotl(y, off, 32, f"{hint}r{off}") for off in offsets]
        group = b.xor_all(inner, f"{hint}g") if len(inner) > 1 else inner[0]
        parts.append(group if base == 0 else b.rotl(group, base, 32, f"{hint}r{base}"))
    return b.xor_all(parts, hint)
