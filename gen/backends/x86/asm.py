"""The x86-64 assembly emitter: GNU assembler, AT&T syntax, System V ABI.

It writes a lowered program (the same one the C emitter writes as
intrinsics) as one function, its vector registers allocated by
gen/backends/regalloc.py.  Three encodings, from the target's features:
legacy SSE (two operands: the first is overwritten), VEX (three operands,
xmm/ymm 0-15) and EVEX (AVX-512: zmm and 32 registers; an instruction that
only has a VEX form, such as VPBLENDVB or VPERM2I128, keeps to 0-15).

The function, in order:
  * a header naming each general register's role, the stack frame and the
    state each loop keeps in vector registers;
  * the frame: only where values spill or the program has scratch arrays,
    %rbp saved and the stack aligned to 64 bytes below it (no red zone);
  * one instruction (or two) per IR op, with a comment naming its value;
  * loops: one general register per distinct loop stride holds stride x the
    loop variable (addresses are base + that register + offset); the first
    one also counts the iterations;
  * VZEROUPPER before RET where the function wrote a ymm/zmm register.
Constants go to .rodata, each with the note that says where it comes from,
as in the C files.

ABI facts in one place: ARGUMENT_REGISTERS, SCRATCH_REGISTERS, ROW_REGISTER; the emitter
uses caller-saved general registers only (no callee-saved one to restore)."""

from dataclasses import dataclass

from ...ir.opcodes import MEMORY_READS
from ..assembly import Dialect, Function, StepWriter, constants, loop_strides
from ..regalloc import InMemory, Instr, MachineLoop, RegisterFile, allocate, walk
from ..schedule import for_pressure
from .rules import shuffle_i32x4_picks

ARGUMENT_REGISTERS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
# Caller-saved registers the SysV ABI leaves to a function: the arguments'
# (those the program does not take) and these, for loop counters and strides.
SCRATCH_REGISTERS = ("r10", "r11")
# Caller-saved too: a row pointer fetched for one access, and SSE's byte broadcast.
ROW_REGISTER = "rax"
FRAME_ALIGN = 64

_LANE_SUFFIX = {8: "b", 16: "w", 32: "d", 64: "q"}
_UNPACK = {8: "bw", 16: "wd", 32: "dq", 64: "qdq"}
# Ops whose EVEX form at 512 bits takes an element size: the VEX mnemonic + "d".
_EVEX_LOGIC = {"xor": "vpxor", "and": "vpand", "or": "vpor", "andnot": "vpandn"}


def encoding(target, bits=None):
    """sse, vex or evex for `target`'s programs, or for one of `bits`: a program
    narrower than 512 bits on an AVX-512 target (uBlock's and SM4's one-block
    forms) is written in VEX form, its registers 0-15; where the target lists
    AVX512VL its VPROLD and VPTERNLOGD on those registers, which have no VEX
    form, are EVEX (the assembler's choice)."""
    features = set(target.cpu_features)
    if "avx512f" in features:
        return "evex" if bits in (None, 512) else "vex"
    if features & {"avx", "avx2"}:
        return "vex"
    return "sse"


def _vex_only(op):
    """Whether `op` keeps to registers 0-15 on an AVX-512 target: below 512
    bits, where the program is written in VEX form (encoding)."""
    bits = op.result.bits if op.result is not None else op.args[0].bits
    return bits < 512


def register_file(target, bits=None):
    """The vector registers of `target` (for a program of `bits`: encoding) as the allocator needs them."""
    kind = encoding(target, bits)
    if kind == "evex":
        return RegisterFile(32, limit=lambda op: 16 if _vex_only(op) else 32, destructive=_evex_destructive,
                            memory=_memory_operand, memory_constants=True)
    if kind == "vex":
        # an AVX-512 target's narrow program may hold VPTERNLOGD (AVX512VL): destructive as under EVEX
        return RegisterFile(16, destructive=_evex_destructive, memory=_memory_operand, memory_constants=True)
    return RegisterFile(16, destructive=_sse_destructive, memory=_memory_operand, memory_recompute=False,
                        memory_constants=True)


# The operand each op may read from memory: Intel's last source (AT&T's first).
_MEMORY_OPERAND = {op: 1 for op in ("xor", "and", "or", "andnot", "lookup16", "unpacklo", "unpackhi", "add",
                                    "minu", "maxs", "gf2p8affine", "gf2p8affineinv", "aesenclast", "blendv",
                                    "shld_native", "clmul")}
_MEMORY_OPERAND.update(ternlog=2, permute2b=2, permute2q=2)


def _memory_operand(op):
    if op.opcode == "blocks128" and op.result.bits == 256 and op.args[0] is not op.args[1]:
        return 1                    # VPERM2I128's second source
    return _MEMORY_OPERAND.get(op.opcode)


def _evex_destructive(op):
    """VPTERNLOGD overwrites its first operand, VPERMI2B and VPERMI2Q their index."""
    return 0 if op.opcode in ("ternlog", "permute2b", "permute2q") else None


def _sse_destructive(op):
    """Legacy SSE overwrites its first operand (loads, broadcasts and constants write a fresh register)."""
    return None if op.opcode in MEMORY_READS | {"store", "const"} else 0


# ---- names --------------------------------------------------------------------

def vector(reg, bits):
    return f"%{ {128: 'x', 256: 'y', 512: 'z'}[bits] }mm{reg}"


@dataclass
class _Function:
    """What one function's instructions need: its general registers and frame."""

    kind: str                 # sse, vex or evex
    bits: int
    params: dict              # parameter name -> register
    scratch: dict             # scratch array name -> frame offset
    slot_base: int            # frame offset of spill slot 0
    slot_bytes: int
    label: str                # prefix of local labels
    offsets: dict             # (loop variable, stride) -> register, inside loops
    constants: dict           # const value name -> rodata label
    split_vaes: int | None = None  # frame offset of the 64 bytes the valgrind form of VAES uses

    def address(self, attrs, extra=0):
        """The AT&T memory operand of a load, store or broadcast (and the
        instruction that fetches a row pointer first, or None)."""
        index = attrs["index"] + extra
        setup = None
        if attrs["param"] in self.scratch:
            base, disp = "rsp", self.scratch[attrs["param"]] + index.base
        elif "row" in attrs:
            setup = f"movq {8 * attrs['row']}(%{self.params[attrs['param']]}), %{ROW_REGISTER}"
            base, disp = ROW_REGISTER, index.base
        else:
            base, disp = self.params[attrs["param"]], index.base
        terms = [(var, coeff) for var, coeff in index.terms if coeff]
        if len(terms) > 1:
            raise ValueError(f"x86 asm: an address with two loop variables {terms}")
        if terms:
            return setup, f"{disp or ''}(%{base},%{self.offsets[terms[0]]})"
        return setup, f"{disp or ''}(%{base})"

    def slot(self, slot):
        return f"{self.slot_base + slot * self.slot_bytes}(%rsp)"

    def memory(self, operand, extra=0):
        """An operand read from memory (`extra` bytes into it): its stack slot,
        its constant, or what its load reads."""
        if operand.slot is not None:
            return f"{self.slot_base + operand.slot * self.slot_bytes + extra}(%rsp)"
        if operand.load.opcode == "const":
            return f"{self.constants[operand.load.result.name]}{f'+{extra}' if extra else ''}(%rip)"
        setup, mem = self.address(operand.load.attrs, extra=extra)
        if setup:
            raise ValueError("x86 asm: a memory operand through a row pointer")
        return mem


def _mov(kind, bits, aligned):
    if kind == "sse":
        return "movdqa" if aligned else "movdqu"
    if bits == 512:
        return "vmovdqa64" if aligned else "vmovdqu64"
    return "vmovdqa" if aligned else "vmovdqu"


def _three(kind, mnemonic, srcs, dst, imm=None):
    """An instruction on (first, second) sources: VEX/EVEX three-operand form,
    or SSE's two-operand form (the allocator put the first source in dst)."""
    prefix = [f"${imm:#x}"] if imm is not None else []
    if kind == "sse":
        if srcs[0] != dst:
            raise ValueError(f"x86 asm: {mnemonic}'s first operand must be its destination under SSE")
        return f"{mnemonic.removeprefix('v')} " + ", ".join(prefix + [srcs[1], dst])
    return f"{mnemonic} " + ", ".join(prefix + [srcs[1], srcs[0], dst])


def instruction(fn, op, dst, srcs):
    """The lines of one allocated op (AT&T: sources first, destination last)."""
    kind = fn.kind
    code, attrs = op.opcode, op.attrs
    bits = op.result.bits if op.result is not None else op.args[0].bits
    d = vector(dst, bits) if dst is not None else None
    s = [fn.memory(r) if isinstance(r, InMemory) else vector(r, a.bits) for r, a in zip(srcs, op.args)]
    evex = kind == "evex" and bits == 512
    if code in ("load", "store"):
        setup, mem = fn.address(attrs)
        text = f"{_mov(kind, bits, False)} {mem}, {d}" if code == "load" else f"{_mov(kind, bits, False)} {s[0]}, {mem}"
        return [setup, text] if setup else [text]
    if code in ("bcast8", "bcast32", "bcast128", "bcast256"):
        return _broadcast(fn, code, attrs, d, bits)
    if code == "const":
        return [f"{_mov(kind, bits, True)} {fn.constants[op.result.name]}(%rip), {d}"]
    if code in _EVEX_LOGIC:
        mnemonic = _EVEX_LOGIC[code] + ("d" if evex else "")
        return [_three(kind, mnemonic, s, d)]
    if code in ("shl", "shr"):
        lane = attrs["lane"]
        if lane == 8:
            raise ValueError("x86 asm: x86 has no byte shift (the x86 rules lower it away)")
        mnemonic = f"vps{'l' if code == 'shl' else 'r'}l{_LANE_SUFFIX[lane]}"
        if kind == "sse":
            if s[0] != d:
                raise ValueError("x86 asm: SSE shifts in place")
            return [f"{mnemonic[1:]} ${attrs['n']}, {d}"]
        return [f"{mnemonic} ${attrs['n']}, {s[0]}, {d}"]
    if code == "lookup16":
        return [_three(kind, "vpshufb", s, d)]
    if code in ("unpacklo", "unpackhi"):
        return [_three(kind, f"vpunpck{code[6]}{_UNPACK[attrs['lane']]}", s, d)]
    if code == "add":
        return [_three(kind, f"vpadd{_LANE_SUFFIX[attrs['lane']]}", s, d)]
    if code == "minu":
        return [_three(kind, f"vpminu{_LANE_SUFFIX[attrs['lane']]}", s, d)]
    if code == "maxs":
        return [_three(kind, f"vpmaxs{_LANE_SUFFIX[attrs['lane']]}", s, d)]
    if code in ("gf2p8affine", "gf2p8affineinv"):
        mnemonic = "vgf2p8affineqb" if code == "gf2p8affine" else "vgf2p8affineinvqb"
        return [_three(kind, mnemonic, s, d, imm=attrs["imm"])]
    if code == "clmul":
        imm = attrs["halves"][0] | attrs["halves"][1] << 4
        if bits == 256 and fn.split_vaes is not None:
            return _split_halves(fn, dst, srcs, s, d, f"vpclmulqdq ${imm:#x},")
        return [_three(kind, "vpclmulqdq", s, d, imm=imm)]
    if code == "aesenclast" and bits == 256 and fn.split_vaes is not None:
        return _split_halves(fn, dst, srcs, s, d, "vaesenclast")
    if code == "aesenclast":
        return [_three(kind, "vaesenclast", s, d)]
    if code == "blendv":
        if bits == 512:
            return [f"vpmovb2m {s[2]}, %k1", f"vpblendmb {s[1]}, {s[0]}, {d}{{%k1}}"]
        return [f"vpblendvb {s[2]}, {s[1]}, {s[0]}, {d}"]
    if code in ("ternlog", "permute2b", "permute2q") and srcs[0] != dst:
        raise ValueError(f"x86 asm: {code} overwrites its first operand: the allocator must put it in the result")
    if code == "ternlog":
        return [f"vpternlogd ${attrs['imm']:#x}, {s[2]}, {s[1]}, {d}"]
    if code in ("permute2b", "permute2q"):
        return [f"vpermi2{code[-1]} {s[2]}, {s[1]}, {d}"]
    if code == "rotl_native":
        return [f"vprol{_LANE_SUFFIX[attrs['lane']]} ${attrs['n']}, {s[0]}, {d}"]
    if code == "shld_native":
        return [f"vpshld{_LANE_SUFFIX[attrs['lane']]} ${attrs['n']}, {s[1]}, {s[0]}, {d}"]
    if code == "blocks128":
        return [_blocks128(bits, s, d, attrs["picks"], op.args[0] is op.args[1])]
    if code == "extract128":
        source_bits, lane = op.args[0].bits, attrs["lane"]
        if lane == 0:
            return [f"vmovdqa {vector(srcs[0], 128)}, {d}"]
        return [f"{'vextracti128' if source_bits == 256 else 'vextracti32x4'} ${lane}, {s[0]}, {d}"]
    if code == "concat128":
        return [f"vinserti128 $1, {s[1]}, {vector(srcs[0], 256)}, {d}"]
    raise ValueError(f"x86 asm: no form for opcode {code!r}")


def _split_halves(fn, dst, srcs, s, d, instruction):
    """A 256-bit VEX instruction of two operands (`instruction`: its mnemonic,
    with its immediate if any) that valgrind 3.19 cannot run, VAESENCLAST or
    VPCLMULQDQ: under KC_VALGRIND_SPLIT_VAES (the constant-time check's build)
    the same on the two 128-bit halves through 64 bytes of the frame (the first
    operand at 0, the second at 32), with no further register."""
    scratch = fn.split_vaes
    second_low, second_high = f"{scratch + 32}(%rsp)", f"{scratch + 48}(%rsp)"
    save_second = [f"vmovdqu {s[1]}, {scratch + 32}(%rsp)"]
    if isinstance(srcs[1], InMemory):
        second_low, second_high, save_second = fn.memory(srcs[1]), fn.memory(srcs[1], 16), []
    x = vector(dst, 128)
    return ["#ifdef KC_VALGRIND_SPLIT_VAES", f"vmovdqu {s[0]}, {scratch}(%rsp)", *save_second,
            f"vmovdqu {scratch}(%rsp), {x}", f"{instruction} {second_low}, {x}, {x}", f"vmovdqu {x}, {scratch}(%rsp)",
            f"vmovdqu {scratch + 16}(%rsp), {x}", f"{instruction} {second_high}, {x}, {x}",
            f"vmovdqu {x}, {scratch + 16}(%rsp)", f"vmovdqu {scratch}(%rsp), {d}", "#else",
            f"{instruction} {s[1]}, {s[0]}, {d}", "#endif"]


def _broadcast(fn, code, attrs, d, bits):
    setup, mem = fn.address(attrs)
    lines = [setup] if setup else []
    if fn.kind == "sse":
        if code == "bcast128":
            return lines + [f"movdqu {mem}, {d}"]
        if code == "bcast32":
            return lines + [f"movd {mem}, {d}", f"pshufd $0, {d}, {d}"]
        word = f"%e{ROW_REGISTER[1:]}"
        return lines + [f"movzbl {mem}, {word}", f"imull $0x01010101, {word}, {word}", f"movd {word}, {d}",
                        f"pshufd $0, {d}, {d}"]
    if (code, bits) in (("bcast128", 128), ("bcast256", 256)):  # the register's own width: a plain load
        return lines + [f"vmovdqu {mem}, {d}"]
    mnemonic = {"bcast8": "vpbroadcastb", "bcast32": "vpbroadcastd",
                "bcast128": "vbroadcasti128" if bits == 256 else "vbroadcasti32x4",
                "bcast256": "vbroadcasti64x4"}[code]
    return lines + [f"{mnemonic} {mem}, {d}"]


def _blocks128(bits, s, d, picks, same):
    if bits == 256 and same:
        imm = sum((2 * (p % 2) + k) << (2 * (2 * i + k)) for i, p in enumerate(picks) for k in (0, 1))
        return f"vpermq ${imm:#04x}, {s[0]}, {d}"
    if bits == 256:
        return f"vperm2i128 ${picks[0] | picks[1] << 4:#04x}, {s[1]}, {s[0]}, {d}"
    if bits == 512 and shuffle_i32x4_picks(picks, same):
        imm = sum((p % 4) << (2 * i) for i, p in enumerate(picks))
        return f"vshufi32x4 ${imm:#04x}, {s[1]}, {s[0]}, {d}"
    raise ValueError(f"x86 asm: no single instruction picks 128-bit blocks {picks} at {bits} bits")


# ---- the function ----------------------------------------------------------------

def unsupported(program):
    """Why this emitter cannot write `program`, or None."""
    if len(program.params) > len(ARGUMENT_REGISTERS):
        return f"x86 asm: {len(program.params)} parameters; registers hold six"
    return None


def function(name, program, target, prefix, dialect, schedule=False, invariant=("rk",)):
    """`program` as the global function `name` (a Function: its parts for
    `dialect` to put together).  `prefix` names its local labels; in the
    library's own dialect 256-bit VAESENCLAST is also written in the form the
    constant-time check's build assembles (KC_VALGRIND_SPLIT_VAES);
    `schedule`: reorder for low register pressure first
    (gen/backends/schedule.py), a choice per kernel (gen/choices.py
    <cipher>.asm_pressure_schedule)."""
    kind = encoding(target, program.bits)
    valgrind_split = dialect.name == "gas"
    allocation = allocate(for_pressure(program, invariant) if schedule else program, register_file(target, program.bits),
                          invariant=invariant)
    bits = program.bits
    params = dict(zip(program.params, ARGUMENT_REGISTERS))
    reason = unsupported(program)
    if reason:
        raise ValueError(reason)
    free = list(ARGUMENT_REGISTERS[len(program.params):] + SCRATCH_REGISTERS)
    strides = loop_strides(allocation.steps)
    offsets, roles = {}, []
    for var, coeffs in strides.items():
        for coeff in coeffs:
            if not free:
                raise ValueError("x86 asm: more loop strides than free general registers")
            offsets[(var, coeff)] = free.pop(0)
            roles.append(f"%{offsets[(var, coeff)]}: {coeff} x {var}" + (" (and the loop count)" if coeff == coeffs[0] else ""))
    counters = {}
    for step in allocation.steps:
        if isinstance(step, MachineLoop) and step.var not in strides:
            if not free:
                raise ValueError("x86 asm: no general register left for a loop counter")
            counters[step.var] = free.pop(0)
            roles.append(f"%{counters[step.var]}: {step.var}, the loop count")
    scratch, offset = {}, 0
    for array, nbytes in program.scratch.items():
        scratch[array] = offset
        offset += -(-nbytes // FRAME_ALIGN) * FRAME_ALIGN
    split_vaes = None
    if valgrind_split and any(isinstance(s, Instr) and s.op.opcode in ("aesenclast", "clmul") and s.op.result.bits == 256
                              for s in walk(allocation.steps)):
        split_vaes, offset = offset, offset + FRAME_ALIGN
    slot_bytes = bits // 8
    frame = offset + allocation.slots * slot_bytes
    frame = -(-frame // FRAME_ALIGN) * FRAME_ALIGN
    # Constants at the register's full width: loaded by one aligned move, or
    # read in place as an instruction's memory operand.
    labels, rodata = constants(allocation.steps, prefix)
    fn = _Function(kind, bits, params, scratch, offset, slot_bytes, f".L{prefix}", offsets, labels, split_vaes)

    writer = _Writer(fn, counters)
    writer.block(allocation.steps)

    header = [f"/* {name}: {program.name}, {len(program.params)} argument{'s' if len(program.params) != 1 else ''}"]
    for param, reg in params.items():
        header.append(f" *   %{reg}: {param}")
    for role in roles:
        header.append(f" *   {role}")
    registers = sorted(allocation.registers)
    header.append(f" *   {vector(0, bits)[1:4]}{registers[0]}-{registers[-1]}: vectors, as allocated ({len(registers)} used)"
                  if registers else " *   no vector register")
    header.append(f" *   frame: {frame} bytes ({allocation.slots} spill slot{'s' if allocation.slots != 1 else ''} of "
                  f"{slot_bytes} bytes" + (f", scratch {', '.join(program.scratch)}" if program.scratch else "") + ")")
    header.append(" */")
    # VZEROUPPER before returning where the function wrote ymm/zmm registers.
    return Function(name, header, frame, writer.body, rodata, allocation,
                    exit=["\tvzeroupper"] if kind != "sse" else [])


class _Writer(StepWriter):
    """The x86 spelling of each machine step."""

    def __init__(self, fn, counters):
        super().__init__()
        self.fn, self.counters, self.labels = fn, counters, iter(range(1000))

    def instruction(self, op, dst, srcs):
        return instruction(self.fn, op, dst, srcs)

    def move(self, step):
        return [f"{_mov(self.fn.kind, self.fn.bits, True)} {vector(step.src, self.fn.bits)}, "
                f"{vector(step.dst, self.fn.bits)}"]

    def spill(self, step):
        return [f"{_mov(self.fn.kind, self.fn.bits, True)} {vector(step.reg, self.fn.bits)}, {self.fn.slot(step.slot)}"]

    def reload(self, step):
        return [f"{_mov(self.fn.kind, self.fn.bits, True)} {self.fn.slot(step.slot)}, {vector(step.reg, self.fn.bits)}"]

    def loop(self, step):
        """xor the loop's registers (stride x variable, or its counter), the
        body, each register up by its stride, and back while below the count."""
        fn, body = self.fn, self.body
        label = f"{fn.label}_loop_{step.var}{next(self.labels)}"
        mine = [(key, reg) for key, reg in fn.offsets.items() if key[0] == step.var]
        counter = mine[0] if mine else ((step.var, 1), self.counters[step.var])
        for _, reg in mine or [counter]:
            body.append(f"\txor %{reg}, %{reg}")
        body += ["\t.p2align 4", f"{label}:"]      # the loop's head on a 16-byte boundary, as GCC puts it
        self.block(step.body)
        for (var, coeff), reg in mine or [counter]:
            body.append(f"\tadd ${coeff}, %{reg}")
        (_, stride), reg = counter
        body.append(f"\tcmp ${stride * step.count}, %{reg}")
        body.append(f"\tjne {label}")


def _cst_section(constant):
    """The Linux kernel's: one mergeable section per constant, whole entries of its size."""
    size = len(constant.data)
    return [f"\t.section .rodata.cst{size}{constant.label.replace('.L', '.', 1)}, \"aM\", @progbits, {size}",
            f"\t.balign {size}"]


def _rodata(section):
    """Constants in one read-only section (`section`'s directive), each aligned to its size."""
    return lambda constant: [section, f"\t.balign {min(len(constant.data), FRAME_ALIGN)}"]


_ENTER = ("\tpush %rbp", "\tmov %rsp, %rbp", f"\tand ${-FRAME_ALIGN}, %rsp", "\tsub ${frame}, %rsp")

DIALECTS = {
    "gas": Dialect("gas", (), ("", "\t.section .note.GNU-stack,\"\",@progbits"),
                   start="\t.globl {symbol}\n\t.hidden {symbol}\n\t.type {symbol}, @function\n\t.p2align 5\n{symbol}:",
                   end="\t.size {symbol}, .-{symbol}", ret="\tret",
                   frame_enter=_ENTER, frame_leave=("\tmov %rbp, %rsp", "\tpop %rbp"),
                   rodata=_rodata("\t.section .rodata"), symbol=lambda s: s),
    # SYM_FUNC_START/END and RET from <linux/linkage.h> (RET: the return thunk
    # or `ret; int3`, as the kernel is configured); no CFI (objtool makes the
    # unwind data), no red zone, constants in .rodata.cst<size>.
    "linux": Dialect("linux", ("#include <linux/linkage.h>",), (),
                     start="\t.p2align 5\nSYM_FUNC_START({symbol})", end="SYM_FUNC_END({symbol})", ret="\tRET",
                     frame_enter=_ENTER, frame_leave=("\tmov %rbp, %rsp", "\tpop %rbp"),
                     rodata=_cst_section, symbol=lambda s: s.removesuffix("_asm")),
    # libgcrypt's cipher/asm-common-amd64.h: ELF(), CFI_*(), ret_spec_stop, SECTION_RODATA.
    "libgcrypt": Dialect("libgcrypt", ("#ifdef __x86_64", "#include <config.h>", "#include \"asm-common-amd64.h\""),
                         ("", "#endif /* __x86_64 */"),
                         start="\t.globl {symbol}\nELF(.type {symbol},@function;)\n\t.align 32\n{symbol}:\n\tCFI_STARTPROC();",
                         end="\tCFI_ENDPROC();\nELF(.size {symbol},.-{symbol};)", ret="\tret_spec_stop;",
                         frame_enter=("\tpush %rbp", "\tCFI_PUSH(%rbp);", "\tmov %rsp, %rbp",
                                      "\tCFI_DEF_CFA_REGISTER(%rbp);", f"\tand ${-FRAME_ALIGN}, %rsp",
                                      "\tsub ${frame}, %rsp"),
                         frame_leave=("\tleave", "\tCFI_LEAVE();"),
                         rodata=_rodata("SECTION_RODATA"),
                         symbol=lambda s: "_gcry_" + s.removesuffix("_asm")),
}


def directives(target):
    """Nothing: GNU as takes every x86 instruction without being told the CPU."""
    return ()
