"""Rewriting passes over IR programs: the legalization machinery every target
shares.  A pass replays a program through a fresh Builder; a rule may replace
an op by a sequence of ops (returning the new result value) or decline (None),
in which case the op is copied.  Passes also fold common subexpressions and drop
dead code, so every lowered program is as lean as the rules allow.
"""

from ..ir import Assign, Builder, Comment, Loop, Op


class Rewriter(Builder):
    """A Builder that knows, for each new value, the op that defined it."""

    def __init__(self, program):
        super().__init__(program.name, program.bits, program.params)
        self.source = program
        self._analyses = {}
        self.defs = {}
        self._cse = [{}]
        self._versions = {}  # state variable -> number of assignments so far
        self.source_defs = {}   # original program: value -> defining op
        self.source_uses = {}   # original program: value -> number of uses
        for stmt in program.walk():
            if isinstance(stmt, Op):
                if stmt.result is not None:
                    self.source_defs[stmt.result] = stmt
                for arg in stmt.args:
                    self.source_uses[arg] = self.source_uses.get(arg, 0) + 1
            elif isinstance(stmt, Assign):
                self.source_uses[stmt.value] = self.source_uses.get(stmt.value, 0) + 1

    def _emit(self, opcode, args, hint, bits=None, **attrs):
        key = None
        if opcode not in ("load", "bcast8", "bcast32"):
            # A state variable is a different value after each assignment.
            key = (opcode, tuple((id(a), self._versions.get(a, 0)) for a in args), bits, _freeze(attrs))
            for table in reversed(self._cse):
                if key in table:
                    return table[key]
        result = super()._emit(opcode, args, hint, bits, **attrs)
        self.defs[result] = self._stmts[-1]
        if key is not None:
            self._cse[-1][key] = result
        return result

    def assign(self, var, value):
        self._versions[var] = self._versions.get(var, 0) + 1
        super().assign(var, value)

    def const(self, data, label, note):
        result = super().const(data, label, note)
        if result not in self.defs:
            self.defs[result] = next(s for s in self.body if isinstance(s, Op) and s.result is result)
        return result

    def definition(self, value):
        return self.defs.get(value)

    def analysis(self, compute):
        """compute(source program), once per pass: the whole-program facts a
        rule needs that one op and its operands do not show."""
        if compute not in self._analyses:
            self._analyses[compute] = compute(self.source)
        return self._analyses[compute]


def _freeze(attrs):
    return tuple(sorted((k, repr(v)) for k, v in attrs.items()))


def rewrite(program, rules):
    """Replay `program`, offering every op to `rules` (first match wins)."""
    rw = Rewriter(program)
    for name, nbytes in program.scratch.items():
        rw.scratch_buffer(name, nbytes)
    mapping = {}
    for var in program.state:
        mapping[var] = rw.var(var.name)
    _replay(program.body, rw, rules, mapping)
    return dead_code_elimination(rw.finish(**program.info))


def _replay(stmts, rw, rules, mapping):
    for stmt in stmts:
        if isinstance(stmt, Comment):
            rw.comment(stmt.text)
        elif isinstance(stmt, Assign):
            rw.assign(mapping[stmt.var], mapping[stmt.value])
        elif isinstance(stmt, Loop):
            for var in rw.state:  # inside the body a variable may hold any iteration's value
                rw._versions[var] = rw._versions.get(var, 0) + 1
            rw._cse.append({})
            with rw.loop(stmt.var, stmt.count):
                _replay(stmt.body, rw, rules, mapping)
            rw._cse.pop()
        elif stmt.opcode == "const":
            mapping[stmt.result] = rw.const(stmt.attrs["data"], stmt.attrs["label"], stmt.attrs["note"])
        else:
            args = tuple(mapping[a] for a in stmt.args)
            result = None
            for rule in rules:
                result = rule(rw, stmt, args)
                if result is not None:
                    break
            if result is None:
                if stmt.result is None:
                    rw._stmts.append(Op(stmt.opcode, None, args, dict(stmt.attrs)))
                    continue
                result = rw._emit(stmt.opcode, args, stmt.result.name, stmt.result.bits
                                  if stmt.result.bits != rw.bits else None, **stmt.attrs)
            if stmt.result is not None:
                mapping[stmt.result] = result


def dead_code_elimination(program):
    """Drop ops whose results nothing uses (stores and assignments are roots)."""
    while True:
        used = set()
        for stmt in program.walk():
            if isinstance(stmt, Op):
                used.update(stmt.args)
            elif isinstance(stmt, Assign):
                used.add(stmt.value)
        removed = _prune(program.body, used)
        if not removed:
            return program


def _prune(stmts, used):
    removed = 0
    kept = []
    for stmt in stmts:
        if isinstance(stmt, Op) and stmt.result is not None and stmt.result not in used:
            removed += 1
            continue
        if isinstance(stmt, Loop):
            removed += _prune(stmt.body, used)
        kept.append(stmt)
    stmts[:] = kept
    return removed
