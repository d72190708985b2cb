"""Where a cipher's key schedule programs are emitted: one file per
architecture, for the target that needs the least, and its assembly twin."""

from ..backends.arch import ARCHES


def baseline_targets(candidates):
    """Per architecture, the C target among `candidates` that needs the least
    (the narrowest, then the fewest CPU features: a key schedule works on 128
    bits, and every CPU that runs a kernel of the cipher must run it), then
    that target's assembly twin where its backend writes assembly."""
    out = []
    for arch in ARCHES:
        mine = [t for t in candidates if t.arch == arch and t.form == "c"]
        if mine:
            least = min(mine, key=lambda t: (t.bits, len(t.cpu_features)))
            out += [least] + ([least.asm_twin()] if least.assembler is not None else [])
    return out


def listed(targets, strategy="key_schedule"):
    """The key-side files of `targets` as (strategy, target name), beside a
    cipher's kernels: every one (the assembly checks go over the twins' entry
    points), and the C targets alone (gen ct-check: a twin runs the same
    lowered programs)."""
    return (tuple((strategy, t.name) for t in targets),
            tuple((strategy, t.name) for t in targets if t.form == "c"))
