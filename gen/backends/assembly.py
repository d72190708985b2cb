"""What the assembly emitters (x86/asm.py, aarch64/asm.py) share, none of it
about an instruction set: a function's parts and how a dialect puts them
together into a file, the walk over an allocation's machine steps (each
backend says how one step is spelled), the constants a function reads, the
loop strides its addresses use, and each step's comment.

A backend's emitter (its asm module) has these things: DIALECTS (name ->
`Dialect`: how one consumer spells a function's opening and end, its frame
and its constants: the library's plain GNU assembler, the Linux kernel's
conventions, libgcrypt's), `function(name, program, target, prefix,
dialect, schedule)`, which turns a lowered program into a `Function` (its
header naming each register's role, its frame, the lines that save and
restore what its ABI says is callee-saved, the body, its constants),
`directives(target)`, the lines a file opens with, `register_file(target)`,
and `unsupported(program)`, why it cannot write a program (or None: a
choice that makes such a program is invalid for that kernel,
gen/explore.py).  `assembly_file` writes a file of them."""

from dataclasses import dataclass, field

from .regalloc import InMemory, Instr, MachineLoop, Move, Note, Reload, Remat, Spill, walk


@dataclass
class Constant:
    label: str
    data: bytes
    note: str


@dataclass
class Function:
    """One function's parts, for a dialect to put together."""

    name: str
    header: list          # comment lines naming the registers' roles
    frame: int            # bytes of stack frame (0: none)
    body: list            # instruction lines
    constants: list       # Constant, for the read-only data
    allocation: object
    saves: list = field(default_factory=list)     # inside the frame, first: callee-saved registers stored
    restores: list = field(default_factory=list)  # inside the frame, last: and loaded back
    exit: list = field(default_factory=list)      # after the frame is gone, before returning (VZEROUPPER)


@dataclass(frozen=True)
class Dialect:
    """How a function, its frame and its constants are spelled for one
    consumer: the library's plain GNU assembler, the Linux kernel's
    conventions, libgcrypt's."""

    name: str
    preamble: tuple          # lines after the provenance comment
    postamble: tuple         # lines at the end of the file
    start: str               # a function's opening, from {symbol}
    end: str
    ret: str
    frame_enter: tuple       # from {frame}: the stack frame set up
    frame_leave: tuple       # from {frame}: and taken down
    rodata: object           # Constant -> the section lines before its label
    symbol: object           # library symbol -> this dialect's name


def assembly_file(provenance, functions, target, prefix, dialect="gas", schedule=False):
    """A GNU assembler source (.S, run through the C preprocessor) holding
    `functions`, a list of (library symbol, lowered program), written by
    `target`'s assembly emitter (Target.assembler: a module with DIALECTS,
    function and directives) in `dialect`, each scheduled for low register
    pressure first where `schedule`; returns the text.  `prefix` names the
    local labels."""
    backend = target.assembler
    style = backend.DIALECTS[dialect]
    written = [backend.function(style.symbol(symbol), program, target, f"{prefix}_{number}", style, schedule)
               for number, (symbol, program) in enumerate(functions)]
    lines = [provenance, *style.preamble, *backend.directives(target), "", "\t.text"]
    for fn in written:
        enter = [line.format(frame=fn.frame) for line in style.frame_enter] if fn.frame else []
        leave = [line.format(frame=fn.frame) for line in style.frame_leave] if fn.frame else []
        lines += ["", *fn.header, style.start.format(symbol=fn.name), *enter, *fn.saves, *fn.body, *fn.restores,
                  *leave, *fn.exit, style.ret, style.end.format(symbol=fn.name)]
    for constant in (c for fn in written for c in fn.constants):
        lines += ["", f"/* {constant.note} */", *style.rodata(constant), f"{constant.label}:"]
        lines += ["\t.byte " + ", ".join(f"0x{b:02x}" for b in constant.data[i:i + 16])
                  for i in range(0, len(constant.data), 16)]
    lines += [*style.postamble, ""]
    return "\n".join(lines)


def constant_ops(steps):
    """Every constant an allocation loads or reads in place, in order."""
    for step in walk(steps):
        if isinstance(step, Remat) and step.op.opcode == "const":
            yield step.op
        elif isinstance(step, Instr):
            if step.op.opcode == "const":
                yield step.op
            for src in step.srcs:
                if isinstance(src, InMemory) and src.load is not None and src.load.opcode == "const":
                    yield src.load


def constants(steps, prefix):
    """{constant value name: label} and the Constants of an allocation, each
    at its register's full width (its 16-byte pattern repeated), so one
    aligned load or a memory operand reads it."""
    labels, data = {}, []
    for op in constant_ops(steps):
        if op.result.name not in labels:
            labels[op.result.name] = f".L{prefix}_{op.result.name}"
            full = op.attrs["data"] * (op.result.bits // 8 // len(op.attrs["data"]))
            data.append(Constant(labels[op.result.name], full, f"{op.result.name}: {op.attrs['note']}"))
    return labels, data


def loop_strides(steps):
    """Per loop variable, its distinct strides (coefficients) in addresses, in order of use."""
    strides = {}
    for step in walk(steps):
        op = step.op if isinstance(step, (Instr, Remat)) else None
        if op is not None and "index" in op.attrs:
            for var, coeff in op.attrs["index"].terms:
                if coeff and coeff not in strides.setdefault(var, []):
                    strides[var].append(coeff)
    return strides


def describe(op):
    """A step's comment: the IR value it computes."""
    args = ", ".join(a.name for a in op.args)
    if op.opcode == "store":
        return f"store {args}"
    return f"{op.result.name} = {op.opcode}({args})"


class StepWriter:
    """Writes an allocation's machine steps as instruction lines, each step's
    last instruction commented with its IR value.  A backend subclasses it
    with the spelling of each kind of step: instruction(op, dst, srcs),
    move(step), spill(step), reload(step) (each a list of lines) and
    loop(step) (which calls `block` on the loop's body)."""

    def __init__(self):
        self.body = []

    def emit(self, lines, comment=None):
        lines = [line for line in lines if line]
        last = max(i for i, line in enumerate(lines) if not line.startswith("#"))
        for i, line in enumerate(lines):
            if line.startswith("#"):       # a preprocessor line
                self.body.append(line)
                continue
            note = f" /* {comment} */" if comment and i == last else ""
            self.body.append(f"\t{line}{note}")

    def block(self, steps):
        for step in steps:
            if isinstance(step, Note):
                self.body += ["", f"\t/* {step.text} */"]
            elif isinstance(step, Instr):
                self.emit(self.instruction(step.op, step.dst, step.srcs), describe(step.op))
            elif isinstance(step, Remat):
                self.emit(self.instruction(step.op, step.reg, ()), describe(step.op))
            elif isinstance(step, Move):
                self.emit(self.move(step), step.value.name)
            elif isinstance(step, Spill):
                self.emit(self.spill(step), f"spill {step.value.name}")
            elif isinstance(step, Reload):
                self.emit(self.reload(step), f"reload {step.value.name}")
            elif isinstance(step, MachineLoop):
                self.loop(step)
