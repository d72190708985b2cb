"""The C emitter every backend shares: it turns a lowered IR program into the
statements of a kernel function, with the instruction set's forms supplied by
the target's dialect (`Target.isa`: x86/intrinsics.py, aarch64/intrinsics.py).

Each op becomes one named `const` temporary, state variables mutable locals,
loops `for` loops (their bodies marked for llvm-mca with KC_MCA_BEGIN/END,
kc_kernel.h), and constants function-local `static const uint8_t` tables,
each with the comment that says where it comes from.

A dialect provides:
    vector_type(bits)      the C type of a vector of `bits`
    expression(op)         the C expression of an op with a result
    store(op)              the C statement of a store
    note_suffix(op)        "" or a comment to put after an op's statement
"""

from ..ir import Assign, Comment, Loop


def index_expr(index):
    """`coeff * var ... + base` as C, e.g. "128 * r + 4".  Loop variables are
    size_t, so a negative coefficient is written as a subtraction after every
    other term ("752 - 64 * r"): the partial sums only fall towards the index
    itself, which is never negative, and nothing wraps (UBSan reports a
    pointer plus a wrapped "-64 * r")."""
    parts = [f"{coeff} * {var}" for var, coeff in index.terms if coeff >= 0]
    if index.base or not parts:
        parts.append(str(index.base))
    return " + ".join(parts) + "".join(f" - {-coeff} * {var}" for var, coeff in index.terms if coeff < 0)


def index_address(index, param):
    """The address param + index, as C."""
    offset = index_expr(index)
    if " - " in offset:
        offset = f"({offset})"  # the offset first, then the pointer: it never leaves the buffer
    return param if offset == "0" else f"{param} + {offset}"


def address(attrs):
    """The address a load or store names: param + index, or param[row] + index."""
    param = f"{attrs['param']}[{attrs['row']}]" if "row" in attrs else attrs["param"]
    return index_address(attrs["index"], param)


def const_table(op):
    """The name and C initializer of a constant's bytes."""
    data = ", ".join(f"0x{b:02x}" for b in op.attrs["data"])
    return f"{op.result.name}_bytes", f"static const uint8_t {op.result.name}_bytes[{len(op.attrs['data'])}] = {{{data}}};"


def _const_lines(op, isa, indent):
    _, table = const_table(op)
    return [f"{indent}/* {op.attrs['note']} */",
            f"{indent}{table}",
            f"{indent}const {isa.vector_type(op.result.bits)} {op.result.name} = {isa.expression(op)};"]


def function_body(program, isa, indent="    "):
    """The statements of the kernel function, as lines of C."""
    lines = []
    for name, nbytes in program.scratch.items():
        lines.append(f"{indent}_Alignas(64) uint8_t {name}[{nbytes}];")
    if program.state:
        names = ", ".join(v.name for v in program.state)
        lines.append(f"{indent}{isa.vector_type(program.bits)} {names};")
    lines.extend(_block(program.body, isa, indent))
    return lines


def _block(stmts, isa, indent):
    lines = []
    for stmt in stmts:
        if isinstance(stmt, Comment):
            lines.append("")
            lines.append(f"{indent}/* {stmt.text} */")
        elif isinstance(stmt, Assign):
            lines.append(f"{indent}{stmt.var.name} = {stmt.value.name};")
        elif isinstance(stmt, Loop):
            inner = indent + "    "
            lines.append(f"{indent}for (size_t {stmt.var} = 0; {stmt.var} < {stmt.count}; {stmt.var}++) {{")
            lines.append(f'{inner}KC_MCA_BEGIN("loop_{stmt.var}");')
            lines.extend(_block(stmt.body, isa, inner))
            lines.append(f'{inner}KC_MCA_END("loop_{stmt.var}");')
            lines.append(f"{indent}}}")
        elif stmt.opcode == "const":
            lines.extend(_const_lines(stmt, isa, indent))
        elif stmt.opcode == "store":
            lines.append(f"{indent}{isa.store(stmt)};")
        else:
            lines.append(f"{indent}const {isa.vector_type(stmt.result.bits)} {stmt.result.name} = "
                         f"{isa.expression(stmt)};{isa.note_suffix(stmt)}")
    return lines
