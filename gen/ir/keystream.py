"""A program transform: fold an XOR with a message into a block kernel's stores.

CTR encrypts counter blocks and XORs the result into the message.  Done as
two passes, the keystream goes to memory and comes back; `xor_into_stores`
turns a block kernel (out = E(in)) into one pass, out = E(in) ^ src, by
giving it one more pointer parameter, `src`, and rewriting every store to
`out` as a load from `src` at the same offset (the same row where `out` is
an array of pointers), an XOR, and the store.  It
works on any program of any strategy, before lowering, so every kernel gets
its fused form from the same data flow as its plain one.
"""

from dataclasses import replace

from .program import Loop, Op, Value

SOURCE = "src"
# CTR's counter blocks V + j for j below this differ from V only in the last
# byte and in its one carry, so they share every other byte with V or with
# V + CTR_GROUP_BLOCKS: the group over which a counter form runs its first
# round once, and the pair (V, V + CTR_GROUP_BLOCKS) the mode layer passes it.
CTR_GROUP_BLOCKS = 1 << 8


def xor_into_stores(program, source=SOURCE, target="out"):
    """The program with one more parameter, `source`, whose bytes are XORed
    into everything it stores to `target`."""
    if source in program.params:
        raise ValueError(f"{program.name} already has a parameter {source!r}")
    if target not in program.params:
        raise ValueError(f"{program.name} has no parameter {target!r} to store to")
    taken = set(program.params) | {v.name for v in program.state}
    taken |= {s.result.name for s in program.walk() if isinstance(s, Op) and s.result is not None}
    fresh = _Names(taken | {source})
    body = _rewrite(program.body, source, target, fresh)
    return replace(program, name=f"{program.name}_xor", params=program.params + (source,), body=body)


class _Names:
    """Fresh value names that clash with none of the program's."""

    def __init__(self, taken):
        self.taken = set(taken)

    def __call__(self, hint):
        name, n = hint, 1
        while name in self.taken:
            name, n = f"{hint}_{n}", n + 1
        self.taken.add(name)
        return name


def _rewrite(stmts, source, target, fresh):
    out = []
    for stmt in stmts:
        if isinstance(stmt, Loop):
            out.append(Loop(stmt.var, stmt.count, _rewrite(stmt.body, source, target, fresh)))
        elif isinstance(stmt, Op) and stmt.opcode == "store" and stmt.attrs["param"] == target:
            value = stmt.args[0]
            message = Value(value.bits, fresh("msg"))
            mixed = Value(value.bits, fresh("ct"))
            out.append(Op("load", message, (), {**stmt.attrs, "param": source}))
            out.append(Op("xor", mixed, (value, message)))
            out.append(Op("store", None, (mixed,), dict(stmt.attrs)))
        else:
            out.append(stmt)
    return out
