"""A program transform: two independent programs as one body (GCM's CTR batch
and GHASH's step), so that the scheduler and the core run one's operations
between the other's: the carry-less multiplier works while the AES or GFNI
units do the rounds.

The `side` program (GHASH) must be straight-line and read nothing the `main`
program writes, except through parameters the caller may point at the same
memory: its loads come first in the body, before any store of `main`, so a
side that hashes `main`'s input in place (GCM decryption, out == src) reads
the ciphertext before `main` overwrites it; its stores come last, after every
load of `main`, so that no load of `main` waits on them (the scheduler keeps
a load after every earlier store).  Between them its other operations stand
first and move wherever the schedule puts them.
"""

from dataclasses import replace

from .program import Loop, Op, Value
from .keystream import _names_in, _Names


def stitch(main, side, name, renames=None):
    """One program: `side`'s loads and operations, `main` whole, then `side`'s
    stores.  `renames` maps side's parameter names to the ones they take in
    the stitched program, or to (name, offset): side's bytes then lie that
    far into the other buffer (a parameter of main's too: the x86 ABI passes
    six pointers in registers).  The parameters are main's, then side's that
    main lacks.  Side's values are renamed where their names clash with main's."""
    if main.bits != side.bits:
        raise ValueError(f"stitch: {main.name} is {main.bits} bits wide, {side.name} {side.bits}")
    if side.state or any(isinstance(s, Loop) for s in side.body):
        raise ValueError(f"stitch: {side.name} must be straight-line, without state variables")
    moves = {q: r if isinstance(r, tuple) else (r, 0) for q, r in (renames or {}).items()}
    params = main.params + tuple(dict.fromkeys(p for p in (moves.get(q, (q, 0))[0] for q in side.params)
                                               if p not in main.params))
    fresh = _Names(_names_in(main) | set(params))
    values = {}

    def mine(value):
        if value not in values:
            values[value] = Value(value.bits, fresh(value.name))
        return values[value]

    early, late = [], []
    for stmt in side.body:
        if not isinstance(stmt, Op):
            early.append(stmt)
            continue
        attrs = dict(stmt.attrs)
        if "param" in attrs:
            attrs["param"], offset = moves.get(attrs["param"], (attrs["param"], 0))
            attrs["index"] = attrs["index"] + offset
        op = Op(stmt.opcode, mine(stmt.result) if stmt.result is not None else None,
                tuple(mine(a) for a in stmt.args), attrs)
        (late if stmt.opcode == "store" else early).append(op)
    return replace(main, name=name, params=params, body=early + list(main.body) + late,
                   info={**main.info, "stitched": side.name,
                         **{f"stitched_{k}": v for k, v in side.info.items()}})
