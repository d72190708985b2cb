"""A small SSA vector IR and its bit-exact interpreter."""

from .program import Assign, Comment, Index, Loop, Op, Program, Value, Var
from .builder import Builder
from .interpreter import run

__all__ = ["Assign", "Builder", "Comment", "Index", "Loop", "Op", "Program", "Value", "Var", "run"]
