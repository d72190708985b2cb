"""Runs an allocated program (regalloc.Allocation) on a model machine: numbered
vector registers and stack slots, each op computed by the IR interpreter.  An
allocation is right when this gives the bytes the interpreter gives on the
program it came from (tests/test_regalloc.py), before any assembly is written."""

import numpy as np

from ..ir.interpreter import execute
from .regalloc import InMemory, Instr, MachineLoop, Move, Note, Reload, Remat, Spill


def run(allocation, program, memory):
    """Run `allocation` (of `program`) on `memory` (as interpreter.run takes it)."""
    local = {**memory, **{name: bytearray(nbytes) for name, nbytes in program.scratch.items()}}
    registers, slots = {}, {}

    def read(register):
        if register not in registers:
            raise ValueError(f"machine: register {register} is read before it is written")
        return registers[register]

    def operand(src, loops):
        if not isinstance(src, InMemory):
            return read(src)
        if src.load is not None:
            return np.asarray(execute(src.load, {}, local, loops))
        if src.slot not in slots:
            raise ValueError(f"machine: slot {src.slot} is read before it is written")
        return slots[src.slot]

    def block(steps, loops):
        for step in steps:
            if isinstance(step, Instr):
                env = {arg: operand(src, loops) for arg, src in zip(step.op.args, step.srcs)}
                result = execute(step.op, env, local, loops)
                if step.dst is not None:
                    registers[step.dst] = result
            elif isinstance(step, Move):
                registers[step.dst] = read(step.src).copy()
            elif isinstance(step, Spill):
                slots[step.slot] = read(step.reg).copy()
            elif isinstance(step, Reload):
                if step.slot not in slots:
                    raise ValueError(f"machine: slot {step.slot} is read before it is written")
                registers[step.reg] = slots[step.slot].copy()
            elif isinstance(step, Remat):
                registers[step.reg] = np.asarray(execute(step.op, {}, local, loops))
            elif isinstance(step, MachineLoop):
                for i in range(step.count):
                    block(step.body, {**loops, step.var: i})
            elif not isinstance(step, Note):
                raise TypeError(f"machine: unknown step {step!r}")

    block(allocation.steps, {})
    return memory
