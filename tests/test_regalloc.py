"""The register allocator on its own (gen/backends/regalloc.py): random
straight-line programs and loops, allocated to few registers, run on the
model machine (gen/backends/machine.py) and compared with the interpreter on
the program itself; then the properties the assembly emitters rely on."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gen.backends import machine
from gen.backends.regalloc import (InMemory, Instr, MachineLoop, Move, RegisterFile, Reload, Remat, Spill,
                                   allocate, walk)
from gen.ir import Builder, interpreter

KEY_BYTES, IN_BYTES, OUT_BYTES = 256, 256, 256


def random_program(seed, loop, ops, state):
    """Loads of the input and the key, constants, XOR/AND/OR/ADD/shifts, a loop
    over `state` variables whose body reads key rows by the loop variable, and
    stores of everything still unused at the end."""
    rng = random.Random(seed)
    b = Builder("random", 128, ("key", "in", "out"))
    pool = [b.load("in", 16 * i, hint="x") for i in range(rng.randint(1, 4))]
    pool.append(b.const(bytes(rng.randrange(256) for _ in range(16)), "c", "random"))
    pool.append(b.load("key", 16 * rng.randrange(4), hint="k"))

    def compute(values, count):
        for _ in range(count):
            a, c = rng.choice(values), rng.choice(values)
            kind = rng.randrange(5)
            if kind == 0:
                values.append(b.xor(a, c))
            elif kind == 1:
                values.append(b.and_(a, c))
            elif kind == 2:
                values.append(b.or_(a, c))
            elif kind == 3:
                values.append(b.add(a, c, lane=32))
            else:
                values.append(b.shl(a, rng.randrange(1, 32), lane=32))
        return values

    compute(pool, ops)
    if loop:
        variables = [b.var(f"s{i}") for i in range(state)]
        for v in variables:
            b.assign(v, rng.choice(pool))
        with b.loop("r", rng.randint(1, 4)):
            inner = list(variables) + rng.sample(pool, min(3, len(pool)))
            inner.append(b.load("key", 16 * rng.randrange(4) + 0, hint="kr"))
            inner[-1] = b.xor(inner[-1], b.load("in", 16 * rng.randrange(4), hint="xr"))
            inner.append(b.load("key", 0, hint="krow") if rng.random() < 0.5 else inner[0])
            compute(inner, ops)
            new = inner[-len(variables):]
            rng.shuffle(new)
            for v, value in zip(variables, new):
                b.assign(v, value)
        pool.extend(b.xor(v, pool[0]) for v in variables)
    for i, value in enumerate(pool[-min(len(pool), OUT_BYTES // 16):]):
        b.store("out", 16 * i, value)
    return b.finish()


def memory(seed):
    rng = random.Random(seed + 1)
    return {"key": bytearray(rng.randbytes(KEY_BYTES)), "in": bytearray(rng.randbytes(IN_BYTES)),
            "out": bytearray(OUT_BYTES)}


def check(program, registers, invariant=("key",), seed=0):
    allocation = allocate(program, registers, invariant=invariant)
    expected = interpreter.run(program, memory(seed))
    got = machine.run(allocation, program, memory(seed))
    assert got["out"] == expected["out"]
    for step in walk(allocation.steps):
        regs = [getattr(step, f) for f in ("dst", "src", "reg") if getattr(step, f, None) is not None]
        regs += [r for r in getattr(step, "srcs", ()) if not isinstance(r, InMemory)]
        assert all(0 <= r < registers.count for r in regs), step
    return allocation


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), ops=st.integers(1, 40), count=st.integers(3, 16))
def test_straight_line_programs_compute_the_same_after_allocation(seed, ops, count):
    check(random_program(seed, loop=False, ops=ops, state=0), RegisterFile(count))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), ops=st.integers(1, 24), state=st.integers(1, 6), count=st.integers(4, 12))
def test_loops_compute_the_same_after_allocation(seed, ops, state, count):
    check(random_program(seed, loop=True, ops=ops, state=state), RegisterFile(count))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10 ** 6), ops=st.integers(1, 24), state=st.integers(1, 5))
def test_destructive_operands_are_copied_when_still_needed(seed, ops, state):
    """Two-operand forms (SSE, AArch64's BSL/SLI/AESE): the first operand's register
    is the result's; where that operand is read again it is copied first."""
    registers = RegisterFile(8, destructive=lambda op: 0 if op.opcode in ("xor", "add", "shl") else None)
    allocation = check(random_program(seed, loop=True, ops=ops, state=state), registers)
    for step in walk(allocation.steps):
        if isinstance(step, Instr) and step.op.opcode in ("xor", "add", "shl"):
            assert step.dst == step.srcs[0]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10 ** 6), ops=st.integers(1, 24), state=st.integers(1, 5))
def test_an_instruction_with_a_form_per_overwritten_operand_overwrites_a_dying_one(seed, ops, state):
    """AArch64's selection (BSL, BIT, BIF) may overwrite any operand: the
    allocator overwrites one whose value dies there, and copies only where none does."""
    registers = RegisterFile(8, destructive=lambda op: (0, 1) if op.opcode in ("xor", "and") else None)
    allocation = check(random_program(seed, loop=True, ops=ops, state=state), registers)
    for step in walk(allocation.steps):
        if isinstance(step, Instr) and step.op.opcode in ("xor", "and"):
            assert step.dst in step.srcs[:2]


def test_the_overwritten_operand_is_the_one_that_dies():
    b = Builder("dies", 128, ("in", "out"))
    kept, dying = b.load("in", 0, hint="kept"), b.load("in", 16, hint="dying")
    b.store("out", 0, b.xor(kept, dying))
    b.store("out", 16, kept)
    program = b.finish()
    allocation = allocate(program, RegisterFile(4, destructive=lambda op: (0, 1) if op.opcode == "xor" else None))
    steps = list(walk(allocation.steps))
    xor = next(s for s in steps if isinstance(s, Instr) and s.op.opcode == "xor")
    assert xor.dst == xor.srcs[1] != xor.srcs[0]
    assert not any(isinstance(s, Move) for s in steps)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10 ** 6), ops=st.integers(1, 24))
def test_register_limits_per_op_are_kept(seed, ops):
    """VEX-encoded instructions name only registers 0-15 of AVX-512's 32."""
    registers = RegisterFile(10, limit=lambda op: 4 if op.opcode == "and" else 10)
    allocation = check(random_program(seed, loop=True, ops=ops, state=3), registers)
    for step in walk(allocation.steps):
        if isinstance(step, Instr) and step.op.opcode == "and":
            assert step.dst < 4 and all(s < 4 for s in step.srcs)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10 ** 6), ops=st.integers(1, 30), state=st.integers(1, 6), count=st.integers(3, 8))
def test_operands_read_from_memory(seed, ops, state, count):
    """x86 reads an instruction's last source from memory: a spilled value
    from its slot, a key load from the key; never through a register."""
    registers = RegisterFile(count, memory=lambda op: 1 if op.opcode in ("xor", "and", "add") else None,
                             memory_constants=True)
    allocation = check(random_program(seed, loop=True, ops=ops, state=state), registers)
    for step in walk(allocation.steps):
        if isinstance(step, Instr):
            for index, src in enumerate(step.srcs):
                if isinstance(src, InMemory):
                    assert index == 1 and step.op.opcode in ("xor", "and", "add")
                    assert (src.slot is None) != (src.load is None)


def test_a_spilled_value_is_read_in_place_rather_than_reloaded():
    b = Builder("in_place", 128, ("in", "out"))
    x = [b.load("in", 16 * i) for i in range(5)]
    acc = b.xor(x[0], x[1])
    for value in x[2:]:
        acc = b.xor(acc, value)
    b.store("out", 0, b.xor(acc, x[0]))
    allocation = check(b.finish(), RegisterFile(2, memory=lambda op: 1 if op.opcode == "xor" else None), invariant=())
    in_memory = [src for s in walk(allocation.steps) if isinstance(s, Instr) for src in s.srcs
                 if isinstance(src, InMemory)]
    assert len(in_memory) >= 3
    assert allocation.count(Reload) <= 1     # x[0] as the first xor's first operand, which is a register


def test_enough_registers_means_no_spill():
    program = random_program(7, loop=True, ops=12, state=3)
    allocation = check(program, RegisterFile(64))
    assert allocation.count(Spill) == allocation.count(Reload) == allocation.slots == 0


def test_constants_and_key_loads_are_recomputed_not_stored():
    """A value that reloads without a store leaves first and comes back by its own op."""
    b = Builder("remat", 128, ("key", "in", "out"))
    keys = [b.load("key", 16 * i, hint="k") for i in range(4)]
    data = [b.load("in", 16 * i) for i in range(4)]
    mixed = [b.xor(d, k) for d, k in zip(data, keys)]
    again = [b.xor(m, k) for m, k in zip(mixed, keys)]
    for i, v in enumerate(again):
        b.store("out", 16 * i, v)
    allocation = check(b.finish(), RegisterFile(5))
    assert allocation.count(Remat) > 0
    assert all(s.value.name.startswith("k") is False for s in walk(allocation.steps) if isinstance(s, Spill))


def test_loads_of_written_memory_are_never_recomputed():
    """A load from memory a store writes (in place, in == out) must not be run again."""
    b = Builder("inplace", 128, ("key", "buf"))
    data = [b.load("buf", 16 * i) for i in range(6)]
    b.store("buf", 0, b.xor(data[0], data[1]))
    for i, d in enumerate(data[1:], 1):
        b.store("buf", 16 * i, b.xor(d, data[0]))
    program = b.finish()
    allocation = allocate(program, RegisterFile(3), invariant=("key", "buf"))
    assert allocation.count(Remat) == 0


def test_loop_state_stays_in_registers_when_it_fits():
    b = Builder("carry", 128, ("key", "in", "out"))
    state = [b.var(f"s{i}") for i in range(4)]
    for i, v in enumerate(state):
        b.assign(v, b.load("in", 16 * i))
    with b.loop("r", 8):
        k = b.bcast128("key", 0)
        new = [b.xor(state[(i + 1) % 4], b.add(state[i], k, lane=32)) for i in range(4)]
        for v, value in zip(state, new):
            b.assign(v, value)
    for i, v in enumerate(state):
        b.store("out", 16 * i, v)
    allocation = check(b.finish(), RegisterFile(8))
    loop = next(s for s in allocation.steps if isinstance(s, MachineLoop))
    assert not any(isinstance(s, (Spill, Reload)) for s in walk(loop.body))
    assert sum(isinstance(s, Move) for s in loop.body) <= 4


def test_too_few_registers_for_one_instruction_is_an_error():
    b = Builder("three", 128, ("in", "out"))
    x = [b.load("in", 16 * i) for i in range(2)]
    b.store("out", 0, b.xor(x[0], x[1]))
    with pytest.raises(ValueError, match="no register"):
        allocate(b.finish(), RegisterFile(1))
