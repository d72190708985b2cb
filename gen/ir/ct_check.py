"""A static constant-time check of lowered programs.

A kernel runs in constant time on its target when nothing the hardware does
differently for different data depends on a secret: no memory address, no loop
bound, no branch, and no instruction whose duration varies with its operands.
This module checks that of a lowered program, statement by statement, with a
taint analysis:

  secret   every value loaded from memory (load, bcast*): the check does not
           know which parameters hold keys or data, so it treats them all as
           secret; and every value computed from a secret one, state
           variables included (a variable is secret if anything secret is
           ever assigned to it).
  public   constants, loop variables, and the Index expressions of addresses.

and these rules (each break is a Violation naming the statement, where it is
and why):

  addresses  a load, store or broadcast addresses memory by its `param` (a
             parameter or scratch buffer of the program), an optional `row`
             (an integer) and an `index` (an Index: an integer base plus
             integer multiples of the variables of the loops around it).
             Nothing else: no value operand (a store's one operand is the
             value it writes), no attribute the check does not know (a gather
             or indirect access would come as one), no term naming anything
             but an enclosing loop's variable.
  loops      a loop's count is an integer constant.
  control    the statements are ops, assignments, comments and loops: any
             other kind (a branch) is refused.
  opcodes    every op is on the allow-list (constant_time_opcodes): the IR's
             target-level ops (opcodes.TARGET_LEVEL: each one or a few SIMD
             instructions of fixed timing, its lookups in registers, pshufb or
             TBL, never in memory; clmul is PCLMULQDQ/VPCLMULQDQ or
             PMULL/PMULL2, whose latency does not depend on the operands on
             the CPUs these targets run on, or its shift-and-mask legalization) and the backends' registered private ops
             (semantics.private_ops(): each one instruction of its ISA by that
             registry's rule).  An abstract op left in a program (sbox8 would
             become a table lookup in memory in a plain C lowering) or an
             unknown opcode is a violation.
  attributes no op's attributes (shift amounts, immediates, lanes, ...) hold a
             runtime value: they are compile-time constants.

In this IR the Builder can only make addresses of that form; the check still
verifies it, so an op made by hand, a new rewrite rule or a future opcode
cannot slip a secret into an address unnoticed.

What it cannot see: the C compiler's output (the valgrind-based ctcheck of the
harness covers the x86 binaries) and the C around the kernel bodies (templates).
"""

from dataclasses import dataclass

from .opcodes import ABSTRACT, MEMORY_READS, TARGET_LEVEL
from .program import Assign, Comment, Index, Loop, Op, Value, Var
from .semantics import private_ops

MEMORY_OPS = MEMORY_READS | {"store"}
# The attributes a memory access may carry, each a compile-time fact (bcast32's
# `uniform` is the kernel's promise about the bytes it reads, not a value).
ADDRESS_ATTRS = {"param": str, "index": Index, "row": int, "volatile": bool, "uniform": bool}


@dataclass(frozen=True)
class Violation:
    """One break of the rules: where (a path of statement indices through the
    loops), the statement as text, and why."""

    position: str
    statement: str
    reason: str

    def __str__(self):
        return f"{self.position}: {self.statement}: {self.reason}"


def constant_time_opcodes():
    """The opcodes allowed in a lowered program: the IR's target-level ops and
    every private op a backend has registered (single instructions of its ISA)."""
    return TARGET_LEVEL | frozenset(private_ops())


def check(program, allowed=None):
    """Every Violation in `program` (an empty list: it passes).  `allowed`:
    the opcodes to accept, constant_time_opcodes() unless given."""
    allowed = constant_time_opcodes() if allowed is None else frozenset(allowed)
    taint = secret_sources(program)
    checker = _Checker(program, allowed, taint)
    checker.block(program.body, "body", frozenset())
    return checker.violations


def secret_sources(program):
    """The taint analysis: each secret Value -> the position of the memory read
    it derives from.  Values are SSA; a state variable is secret if anything
    secret is assigned to it anywhere, so the pass repeats until no variable
    changes (loops carry values from one iteration to the next)."""
    taint = {}
    while True:
        before = len(taint)
        _propagate(program.body, "body", taint)
        if len(taint) == before:
            return taint


def _propagate(stmts, where, taint):
    for i, stmt in enumerate(stmts):
        position = f"{where}[{i}]"
        if isinstance(stmt, Loop):
            _propagate(stmt.body, f"{position}/loop {stmt.var}", taint)
        elif isinstance(stmt, Assign):
            if isinstance(stmt.value, Value) and isinstance(stmt.var, Var) and stmt.value in taint \
                    and stmt.var not in taint:
                taint[stmt.var] = taint[stmt.value]
        elif isinstance(stmt, Op) and isinstance(stmt.result, Value) and stmt.result not in taint:
            if stmt.opcode in MEMORY_READS:
                taint[stmt.result] = position
            else:
                source = next((taint[a] for a in stmt.args if isinstance(a, Value) and a in taint), None)
                if source is not None:
                    taint[stmt.result] = source


class _Checker:
    """Walks the program once, with the enclosing loops' variables in scope."""

    def __init__(self, program, allowed, taint):
        self.memory = set(program.params) | set(program.scratch)
        self.allowed = allowed
        self.taint = taint
        self.violations = []

    def flag(self, position, stmt, reason):
        self.violations.append(Violation(position, describe(stmt), reason))

    def block(self, stmts, where, loop_vars):
        for i, stmt in enumerate(stmts):
            position = f"{where}[{i}]"
            if isinstance(stmt, Loop):
                self.loop(stmt, position, loop_vars)
            elif isinstance(stmt, Op):
                self.op(stmt, position, loop_vars)
            elif isinstance(stmt, Assign):
                if not isinstance(stmt.var, Var) or not isinstance(stmt.value, Value):
                    self.flag(position, stmt, "an assignment must copy a value into a state variable")
            elif not isinstance(stmt, Comment):
                self.flag(position, stmt, f"unknown statement kind {type(stmt).__name__}: control flow "
                                          f"(a branch?) this check cannot follow")

    def loop(self, loop, position, loop_vars):
        if not _is_int(loop.count) or loop.count < 0:
            self.flag(position, loop, f"loop count {self.runtime(loop.count)} is not a constant")
        if not isinstance(loop.var, str):
            self.flag(position, loop, f"loop variable {_text(loop.var)} is not a name")
        self.block(loop.body, f"{position}/loop {loop.var}", loop_vars | {loop.var})

    def op(self, op, position, loop_vars):
        for arg in op.args:
            if not isinstance(arg, Value):
                self.flag(position, op, f"operand {_text(arg)} is not an IR value")
        if op.opcode in MEMORY_OPS:
            self.address(op, position, loop_vars)
        else:
            for name, value in op.attrs.items():
                if _holds_value(value):
                    self.flag(position, op, f"attribute {name} is {self.runtime(value)}, not a constant")
        if op.opcode in self.allowed:
            return
        operands = "secret" if any(isinstance(a, Value) and a in self.taint for a in op.args) else "public"
        if op.opcode in ABSTRACT:
            reason = f"abstract op {op.opcode} left unlowered (on {operands} operands)"
            if op.opcode == "sbox8":
                reason += ": a table lookup in memory indexed by the data, unless a target lowers it"
        else:
            reason = f"opcode {op.opcode!r} is not on the constant-time allow-list (on {operands} operands)"
        self.flag(position, op, reason)

    def address(self, op, position, loop_vars):
        """param + index (or param[row] + index), from constants and loop variables alone."""
        expected_args = 1 if op.opcode == "store" else 0
        if len(op.args) != expected_args:
            what = "the value it writes" if expected_args else "none"
            self.flag(position, op, f"{op.opcode} takes {what} as operands, not {len(op.args)}: "
                                    f"its address would depend on a value")
        for name, value in op.attrs.items():
            kind = ADDRESS_ATTRS.get(name)
            if kind is None:
                self.flag(position, op, f"unknown address attribute {name}={self.runtime(value)}")
            elif not isinstance(value, kind) or (kind is int and not _is_int(value)):
                self.flag(position, op, f"{name} is {self.runtime(value)}, not a constant {kind.__name__}")
        for name in ("param", "index"):
            if name not in op.attrs:
                self.flag(position, op, f"{op.opcode} has no {name}")
        param = op.attrs.get("param")
        if isinstance(param, str) and param not in self.memory:
            self.flag(position, op, f"{param!r} is neither a parameter nor a scratch buffer")
        row = op.attrs.get("row")
        if _is_int(row) and row < 0:
            self.flag(position, op, f"row {row} is negative")
        index = op.attrs.get("index")
        if isinstance(index, Index):
            self.index(op, index, position, loop_vars)

    def index(self, op, index, position, loop_vars):
        if not _is_int(index.base):
            self.flag(position, op, f"index base {self.runtime(index.base)} is not a constant")
        for term in index.terms:
            var, coeff = term if isinstance(term, tuple) and len(term) == 2 else (term, None)
            if not isinstance(var, str) or var not in loop_vars:
                self.flag(position, op, f"index term {self.runtime(var)} is not the variable of a loop around it")
            if not _is_int(coeff):
                self.flag(position, op, f"index coefficient {self.runtime(coeff)} of {var} is not a constant")

    def runtime(self, thing):
        """`thing` as a report shows it: a value with whether it is secret, and from where."""
        values = _values_in(thing)
        if not values:
            return _text(thing)
        secret = [v for v in values if v in self.taint]
        if secret:
            return f"{_text(thing)} (secret: derived from the memory read at {self.taint[secret[0]]})"
        return f"{_text(thing)} (a runtime value)"


def describe(stmt):
    """A statement as one line: `%x = xor(%a, %b)`, `store(%y) out+16*r+4`, `loop r x 8`."""
    if isinstance(stmt, Loop):
        return f"loop {stmt.var} x {_text(stmt.count)}"
    if isinstance(stmt, Assign):
        return f"{_text(stmt.var)} := {_text(stmt.value)}"
    if not isinstance(stmt, Op):
        return repr(stmt)
    text = f"{stmt.opcode}({', '.join(_text(a) for a in stmt.args)})"
    if stmt.opcode in MEMORY_OPS:
        text += " " + _address_text(stmt.attrs)
    return f"{_text(stmt.result)} = {text}" if stmt.result is not None else text


def _address_text(attrs):
    param = attrs.get("param")
    where = f"{param}[{_text(attrs['row'])}]" if "row" in attrs else f"{param}"
    index = attrs.get("index")
    if isinstance(index, Index):
        terms = (t if isinstance(t, tuple) and len(t) == 2 else (t, "?") for t in index.terms)
        parts = [f"{_text(coeff)}*{var if isinstance(var, str) else _text(var)}" for var, coeff in terms]
        return f"{where}+" + "+".join(parts + [_text(index.base)])
    return f"{where}+{_text(index)}"


def _text(thing):
    """An IR value as the IR prints it (%name; state variables too), anything else by repr."""
    return f"%{thing.name}" if isinstance(thing, Value) else repr(thing)


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _values_in(thing):
    """The IR values inside an attribute (nested in tuples, lists, dicts, Index terms)."""
    if isinstance(thing, Value):
        return [thing]
    if isinstance(thing, Index):
        return _values_in(thing.base) + _values_in(thing.terms)
    if isinstance(thing, (tuple, list)):
        return [v for item in thing for v in _values_in(item)]
    if isinstance(thing, dict):
        return [v for item in thing.items() for v in _values_in(item)]
    return []


def _holds_value(thing):
    return bool(_values_in(thing))
