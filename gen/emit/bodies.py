"""The function bodies of one kernel file, in the form its target writes.

A C target's bodies are its C emitter's statements.  An assembly twin
(Target.form == "asm") has the same C file around them (dispatch, modes,
the impl record), but each body is a call into the twin's own assembly file,
which `assembly()` writes from the very programs the C twin writes as
intrinsics: the backend's assembly emitter, registers allocated by
gen/backends/regalloc.py.  SM4's and ZUC's twins are also written in the
dialects of the projects that ship those ciphers in assembly (DOWNSTREAM)."""

from ..backends.assembly import assembly_file

# The dialects other than the library's own (x86/asm.py's DIALECTS) that SM4
# and ZUC kernels are written in, under generated/asm/<dialect>/<architecture>/.
DOWNSTREAM = ("linux", "libgcrypt")

ASM_GLUE = "/* {file}: the same lowered program, in assembly (registers allocated by gen/backends/regalloc.py). */"


class KernelBodies:
    def __init__(self, target, prefix, pressure_schedule=False):
        """`pressure_schedule`: the assembly is scheduled for low register
        pressure before allocation (gen/choices.py asm_pressure_schedule)."""
        self.target = target
        self.prefix = prefix
        self.pressure_schedule = pressure_schedule
        self.functions = []     # (assembly symbol, lowered program)

    def __call__(self, program, name):
        """The body of the kernel function `name` (unique in its file) that runs `program`."""
        if self.target.form == "c":
            return self.target.c_body(program)
        symbol = f"{self.target_prefix}_{name}_asm"
        if any(symbol == s for s, _ in self.functions):
            raise ValueError(f"{self.prefix}: two kernel functions named {name!r}")
        self.functions.append((symbol, program))
        params = ", ".join(f"const void *{p}" for p in program.params)
        return ["    " + ASM_GLUE.format(file=f"{self.prefix}.S"),
                f"    void {symbol}({params});",
                f"    {symbol}({', '.join(program.params)});"]

    @property
    def target_prefix(self):
        """The C twin's file prefix (sm4_byteslice_avx2_gfni for sm4_byteslice_avx2_gfni_asm)."""
        return self.prefix.removesuffix(f"_{self.target.name}") + f"_{self.target.base_name}"

    def assembly(self, provenance, downstream=()):
        """{path: text} of the twin's assembly file, and of the same functions
        in each `downstream` dialect (the Linux kernel's, libgcrypt's) under
        asm/<dialect>/<architecture>/, for maintainers to check in; nothing for a
        C target."""
        if self.target.form == "c":
            return {}
        schedule = self.pressure_schedule
        files = {f"src/{self.prefix}.S": assembly_file(provenance, self.functions, self.target, self.prefix,
                                                       schedule=schedule)}
        for dialect in downstream:
            path = f"asm/{dialect}/{self.target.arch.name}/{self.target_prefix}.S"
            files[path] = assembly_file(provenance, self.functions, self.target, self.target_prefix, dialect, schedule)
        return files
