"""Scheduling for low register pressure, before register allocation.

Kernels are written in the order that reads well (a whole transposition, then
every round's S-box inputs, ...), which keeps many values alive at once.
`for_pressure(program)` reorders each straight-line stretch (the top level
between loops, and each loop body) by a greedy list schedule: among the ops
whose inputs are ready, the one that ends the most live ranges and starts
the fewest comes first; ties keep the written order.  The out-of-order cores
this code runs on find the parallelism again; a spill they cannot remove.

What must stay in order: an op after the ops that define its operands; a
read of a state variable between the assignments around it; memory: a store
after every earlier load or store, a load after every earlier store (the
input and output may be one buffer), except loads of memory no store of the
function writes (`invariant` parameters, as for the allocator).  Comments
stay with the op that follows them.
"""

from ..ir import Assign, Comment, Loop, Op, Program, Var
from ..ir.opcodes import MEMORY_READS



def for_pressure(program, invariant=()):
    """`program` with every straight-line stretch reordered for low register pressure."""
    free = frozenset(invariant) - program.stored_params()
    uses = _read_counts(program.body)
    body = _block(program.body, free, uses)
    return Program(program.name, program.bits, program.params, program.state, body, program.info,
                   program.scratch)


def _read_counts(stmts, counts=None):
    counts = {} if counts is None else counts
    for stmt in stmts:
        if isinstance(stmt, Loop):
            _read_counts(stmt.body, counts)
        elif isinstance(stmt, Op):
            for arg in stmt.args:
                counts[arg] = counts.get(arg, 0) + 1
        elif isinstance(stmt, Assign):
            counts[stmt.value] = counts.get(stmt.value, 0) + 1
    return counts


def _block(stmts, free, uses):
    out, stretch = [], []
    for stmt in stmts:
        if isinstance(stmt, Loop):
            out += _stretch(stretch, free, uses)
            stretch = []
            out.append(Loop(stmt.var, stmt.count, _block(stmt.body, free, uses)))
        else:
            stretch.append(stmt)
    return out + _stretch(stretch, free, uses)


def _reads(stmt):
    if isinstance(stmt, Op):
        return stmt.args
    return (stmt.value,)


def _stretch(stmts, free, uses):
    """One straight-line stretch, scheduled."""
    items, pending_comments = [], []
    for stmt in stmts:
        if isinstance(stmt, Comment):
            pending_comments.append(stmt)
        else:
            items.append((stmt, pending_comments))
            pending_comments = []
    if len(items) < 3:
        return [s for stmt, comments in items for s in (*comments, stmt)] + pending_comments
    preds = [set() for _ in items]
    defined_at, last_store, loads_since, var_reads, var_write = {}, None, [], {}, {}
    for i, (stmt, _) in enumerate(items):
        for value in _reads(stmt):
            if value in defined_at:
                preds[i].add(defined_at[value])
            if isinstance(value, Var):
                if value in var_write:
                    preds[i].add(var_write[value])
                var_reads.setdefault(value, []).append(i)
        if isinstance(stmt, Assign):
            # After the earlier reads of the variable (they read the old value) and its earlier write.
            preds[i].update(j for j in var_reads.pop(stmt.var, []) if j != i)
            if stmt.var in var_write:
                preds[i].add(var_write[stmt.var])
            var_write[stmt.var] = i
            continue
        if stmt.opcode == "store":
            preds[i].update(loads_since)
            if last_store is not None:
                preds[i].add(last_store)
            last_store, loads_since = i, []
        elif stmt.opcode in MEMORY_READS and stmt.attrs["param"] not in free:
            if last_store is not None:
                preds[i].add(last_store)
            loads_since.append(i)
        if stmt.result is not None:
            defined_at[stmt.result] = i
    # Reads left in this stretch per value, and which values outlive it.
    remaining = {}
    for stmt, _ in items:
        for value in _reads(stmt):
            remaining[value] = remaining.get(value, 0) + 1
    outlives = {v for v, n in remaining.items() if uses.get(v, 0) > n or isinstance(v, Var)}
    succs = [[] for _ in items]
    waiting = [len(p) for p in preds]
    for i, p in enumerate(preds):
        for j in p:
            succs[j].append(i)
    ready = [i for i, n in enumerate(waiting) if n == 0]
    order = []
    while ready:
        def score(i):
            stmt = items[i][0]
            ends = sum(1 for v in set(_reads(stmt)) if remaining[v] == 1 and v not in outlives)
            starts = 1 if isinstance(stmt, Op) and stmt.result is not None else 0
            return (starts - ends, i)
        best = min(ready, key=score)
        ready.remove(best)
        order.append(best)
        for value in _reads(items[best][0]):
            remaining[value] -= 1
        for j in succs[best]:
            waiting[j] -= 1
            if waiting[j] == 0:
                ready.append(j)
    if len(order) != len(items):
        raise ValueError("schedule: a cycle in the dependences (a bug)")
    return [s for i in order for s in (*items[i][1], items[i][0])] + pending_comments
