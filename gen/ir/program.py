"""The IR's data structures.

A program is a function of byte pointers (its parameters) whose body is a list
of statements: SSA operations on vectors of 128, 256 or 512 bits, assignments to
mutable state variables, comments, and counted loops.  Operations name their
opcode and carry attributes (constants, matrices, immediates); `opcodes.py`
says what each opcode means, `interpreter.py` runs it, backends lower it.
"""

from dataclasses import dataclass, field

VECTOR_BITS = (128, 256, 512)


@dataclass(frozen=True, eq=False)
class Value:
    """An SSA value (the result of one Op), or a read of a state variable."""

    bits: int
    name: str

    def __repr__(self):
        return f"%{self.name}"


@dataclass(frozen=True, eq=False)
class Var(Value):
    """A mutable state variable: read like a Value, written by Assign."""


@dataclass(frozen=True)
class Index:
    """A byte offset `base + sum(coeff * loop_var)` into a pointer parameter."""

    base: int = 0
    terms: tuple = ()  # ((loop variable name, coefficient), ...)

    def __add__(self, offset):
        return Index(self.base + offset, self.terms)

    def evaluate(self, loop_values):
        return self.base + sum(coeff * loop_values[var] for var, coeff in self.terms)


@dataclass(eq=False)
class Op:
    opcode: str
    result: Value | None
    args: tuple
    attrs: dict = field(default_factory=dict)


@dataclass(eq=False)
class Assign:
    var: Var
    value: Value


@dataclass(eq=False)
class Comment:
    text: str


@dataclass(eq=False)
class Loop:
    var: str
    count: int
    body: list


@dataclass(eq=False)
class Program:
    """A kernel: `params` are byte-pointer names, `body` the statements.

    `state` lists the state variables (declared before the body);
    `scratch` maps the names of the function's own byte arrays (memory it
    addresses like a parameter, alive for one call) to their sizes;
    `info` carries facts the emitter reports (batch size, key form, ...)."""

    name: str
    bits: int
    params: tuple
    state: list
    body: list
    info: dict = field(default_factory=dict)
    scratch: dict = field(default_factory=dict)

    def walk(self):
        """Every Op, Assign and Comment, loops flattened (body order)."""
        yield from _walk(self.body)

    def stored_params(self):
        """The pointer parameters (and scratch arrays) some store writes."""
        return {s.attrs["param"] for s in self.walk() if isinstance(s, Op) and s.opcode == "store"}


def _walk(stmts):
    for stmt in stmts:
        if isinstance(stmt, Loop):
            yield from _walk(stmt.body)
        else:
            yield stmt
