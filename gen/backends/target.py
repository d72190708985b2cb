"""What a target is: a vector width, the CPU features it needs, and the
ordered passes of legalization rules that take a kernel program onto it."""

from dataclasses import dataclass, replace

from ..ir.opcodes import ABSTRACT
from . import cpu_features
from .arch import Arch
from .c_emitter import function_body
from .passes import rewrite


class NoLowering(ValueError):
    """A program needs an operation the target has no instruction or rule for
    (a choice the target cannot take, such as a 256-byte table lookup on AVX2)."""


@dataclass(frozen=True)
class Target:
    name: str
    bits: int
    cflags: tuple          # compiler flags for native builds
    cpu_features: tuple    # names in gen/backends/cpu_features.py, checked at run time
    passes: tuple          # tuple of tuples of rules, applied in order
    emulable: bool = False  # SIMDe implements its special instructions portably
    lacks: tuple = ()       # target-level opcodes this ISA does not have
    description: str = ""
    # Where it runs and how it is written: set by each backend's target()
    # (x86/target.py, aarch64/target.py).
    arch: Arch | None = None
    isa: object = None      # the C emitter's dialect: a module with vector_type, expression, store, note_suffix
    header: str = ""        # the generated header its kernels include (kc_x86.h, kc_neon.h)

    # The assembly twin: the same kernels written by the backend's assembly
    # emitter (`assembler`, its asm module: gen/backends/assembly.py; None where the backend
    # has none) instead of as C intrinsics.  A twin is a target of its own,
    # named <target>_asm, with form "asm" and `twin_of` its C target's name.
    assembler: object = None
    form: str = "c"
    twin_of: str = ""

    @property
    def base_name(self):
        """The C target's name: this one's, or for an assembly twin its C twin's
        (gen/choices.py's choices are made for the kernel, whichever form writes it)."""
        return self.twin_of or self.name

    @property
    def source(self):
        """The module that defines this target, for provenance."""
        return f"gen/backends/{self.arch.package}/{self.base_name}.py"

    @property
    def valgrind(self):
        """How the constant-time check runs this target's kernels under
        valgrind (cpu_features.py says which instructions valgrind executes):
        "native" as built; "split" natively, in a library built with
        KC_VALGRIND_SPLIT_VAES; "emulated" only in its SIMDe build (emulable);
        "none" not at all."""
        verdicts = {cpu_features.feature(name).valgrind for name in self.cpu_features}
        if cpu_features.NO not in verdicts:
            return "split" if cpu_features.SPLIT in verdicts else "native"
        return "emulated" if self.emulable else "none"

    def asm_twin(self):
        """This target's kernels in assembly (the same lowered programs)."""
        if self.assembler is None:
            raise ValueError(f"target {self.name}: its backend has no assembly emitter")
        return replace(self, name=f"{self.name}_asm", form="asm", twin_of=self.name, emulable=False,
                       description=f"{self.description}; assembly, registers allocated by gen/backends/regalloc.py")

    def c_body(self, program, indent="    "):
        """A lowered program as the statements of a C function, in this target's dialect."""
        return function_body(program, self.isa, indent)

    def lower(self, program):
        """Apply every pass; the result must use no abstract opcode."""
        for rules in self.passes:
            program = rewrite(program, rules)
        leftover = {s.opcode for s in program.walk() if hasattr(s, "opcode")} & (ABSTRACT | set(self.lacks))
        if leftover:
            raise NoLowering(f"target {self.name}: no rule lowers {sorted(leftover)}")
        return program
