"""The generator's choices, checked in: gen/choices.toml.

Each choice is a named parameter (PARAMETERS) whose values the generator
enumerates, never a list written by hand, and which takes one value for
every kernel, one per target, or one per kernel:

  sm4.decomposition       one    the S-box decomposition (the key schedule's
                                 sliced round keys depend on it)
  zuc.s1_isomorphism      target the field isomorphism carrying S1 into AES's field
  zuc.<s0|add|rot16|swap>_form  target  how the round writes S0, the LFSR's
                                 additions, L1/L2's rotation by 16, the byte exchanges
  <cipher>.groups         kernel independent groups interleaved (hides latency,
                                 costs registers)
  sm4.multi_groups        kernel the same for the multi-key form (many streams)
  sm4.one_block_layer     kernel L's form in the one-block form (serial work)
  sm4.rounds_per_iteration kernel rounds written out per loop iteration
  sm4.basis_blocks        kernel which blocks of byte slicing's fused 4x4 grid
                                 are products (the others XORs of them)
  zuc.block_form          kernel the keystream block unrolled, unrolled with the
                                 LFSR cells in the state array, or rolled (a loop)
  <cipher>.schedule_before_ra     kernel  GCC schedules before allocation too
  <cipher>.asm_pressure_schedule  kernel  the assembly twin is scheduled for
                                          low register pressure before allocation

A kernel is named <strategy>_<target>.  An assembly twin takes its C twin's
choices, but for the parameters marked `twins` (groups, rounds per
iteration: what shapes its register allocation and schedule, which are its
own), where it has values of its own, keyed <strategy>_<target>_asm and
ranked by its own measurement.  `gen` and `gen check` read the file and never
explore, so they stay deterministic, offline and fast; `gen explore <cipher>
--apply` rewrites the file from a new ranking, and `gen --choose name=value`
(or name.<target or kernel>=value) overrides an entry for one run.  The file
keeps, beside each value, the ranking that chose it."""

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

PATH = Path(__file__).with_name("choices.toml")
HEADER = """\
# The generator's choices (gen/choices.py): what `gen` and `gen check` use.
# `gen explore <cipher> --apply` rewrites this file from a new ranking;
# `gen --choose name=value` (or name.<target or kernel>=value) overrides an entry for one run.
"""

BOOLEAN = (False, True)
BLOCK_FORMS = ("unrolled", "lfsr_in_memory", "rolled")


def _decompositions():
    from .kernels.sm4_constants import decompositions
    return tuple(range(len(decompositions())))


def _bases():
    from .kernels.sm4_byteslice import bases
    from .kernels.sm4_constants import decomposition, fused_round
    return tuple(bases(fused_round(decomposition(0)).grid))


def _isomorphisms():
    from .kernels.zuc_constants import isomorphisms
    return tuple(range(len(isomorphisms())))


@dataclass(frozen=True)
class Parameter:
    name: str                  # <cipher>.<what>
    keyed: str                 # "one", "target" or "kernel"
    what: str                  # one line: what a value is
    values: Callable           # () -> the values, enumerated by the generator
    strategies: tuple = ()     # keyed "kernel": the strategies it applies to (empty: all)
    # For a large space: other parameters' values (gen --choose spellings)
    # under which every value's programs are small enough to lower in bulk;
    # values whose small programs lower alike are lowered in full once
    # (gen/explore.py static_costs).
    probe: tuple = ()
    twins: bool = False        # keyed "kernel": the assembly twins have values of their own
    # The form of the kernel's file the value shapes, which gen explore costs
    # and times: "batch" (the bulk program every mode runs), "multi" (SM4's
    # multi-key form, CBC encryption of many streams) or "one_block" (SM4's
    # one-block form, serial work).
    form: str = "batch"

    def keyed_kernels(self):
        """(strategy, target name) of what takes a value, keyed "kernel": the
        cipher's C kernels (of `strategies`), and with `twins` their assembly
        twins after them."""
        from .backends import SIMD_TARGETS, implementations
        return tuple((s, t) for s, t in implementations(self.cipher)
                     if (SIMD_TARGETS[t].form == "c" or self.twins) and (not self.strategies or s in self.strategies))

    @property
    def cipher(self):
        return self.name.split(".")[0]

    def keys(self):
        """What takes a value: (None,), the cipher's C targets, or its kernels
        (keyed_kernels)."""
        from .backends import SIMD_TARGETS, kernels
        if self.keyed == "one":
            return (None,)
        if self.keyed == "target":
            return tuple(dict.fromkeys(t for _, t in kernels(self.cipher) if SIMD_TARGETS[t].form == "c"))
        return tuple(f"{s}_{t}" for s, t in self.keyed_kernels())

    def key(self, strategy, target):
        """The key of the kernel `strategy` on `target` (for an assembly twin
        its C twin's, but where the parameter has `twins`)."""
        kernel_target = target.name if self.twins else target.base_name
        return {"one": None, "target": target.base_name, "kernel": f"{strategy}_{kernel_target}"}[self.keyed]

    def assignment(self, value, key=None):
        """gen --choose's spelling of `value` for `key`."""
        text = str(value).lower() if isinstance(value, bool) else str(value)
        return f"{self.name}={text}" if key is None else f"{self.name}.{key}={text}"


def _zuc_forms(name):
    def values():
        from .kernels.zuc_lanes import FORMS
        return FORMS[name]
    return values


ZUC_FORMS = {
    "s0_form": "S0's three Feistel rounds of nibble tables with the rotation by 5 folded into the third (folded) "
               "or as its own step (rotate), or S0 as one 256-byte table (table: where the target looks whole bytes up)",
    "add_form": "the additions mod 2^31 - 1 by unsigned minimum, the last by signed maximum (min: where the target has an unsigned 32-bit minimum), "
                "or by folding bit 31 (fold)",
    "rot16_form": "L1's and L2's inputs rotated by 16 as a select of W1 and W2 (select) or by a rotation (rotate)",
    "swap_form": "the S-box layer's exchanges of odd bytes by two selects (select) or an XOR delta swap (xor), "
                 "or its inputs and outputs made by interleaving bytes (interleave: a shift and a select each, "
                 "one TRN on AArch64), which spares the rotations of L2's output and of R2",
}


def _per_cipher(what, text, values, ciphers=("sm4", "zuc", "ublock")):
    return [Parameter(f"{c}.{what}", "kernel", text, values) for c in ciphers]


PARAMETERS = {p.name: p for p in [
    Parameter("sm4.decomposition", "one", "an S-box decomposition A2*inv(A1*x ^ c1) ^ c2 over AES's field",
              _decompositions, probe=("sm4.groups=1", "sm4.rounds_per_iteration=4")),
    Parameter("zuc.s1_isomorphism", "target", "a field isomorphism K carrying S1 into AES's field", _isomorphisms),
    *(Parameter(f"zuc.{name}", "target", what, _zuc_forms(name)) for name, what in ZUC_FORMS.items()),
    Parameter("sm4.groups", "kernel", "independent groups of blocks interleaved", lambda: (1, 2, 4, 8), twins=True),
    Parameter("ublock.groups", "kernel", "independent register pairs interleaved", lambda: (1, 2, 4),
              strategies=("register",), twins=True),
    Parameter("sm4.multi_groups", "kernel", "independent groups of the multi-key form (CBC encryption of many "
              "streams; a pass takes 4 x groups x width / 128 streams, at most 16)", lambda: (1, 2, 4),
              strategies=("byteslice", "wordslice"), twins=True, form="multi"),
    Parameter("sm4.one_block_layer", "kernel", "L in the one-block form (serial work: CBC encryption, the MACs): "
              "its flat form, two parts the next round joins in one three-input XOR, or the planned one "
              "(gen/kernels/sm4_wordslice.py LAYERS)", lambda: ("flat", "plan"),
              strategies=("byteslice", "wordslice"), twins=True, form="one_block"),
    Parameter("sm4.rounds_per_iteration", "kernel", "rounds written out per loop iteration",
              lambda: (4, 8, 16, 32), strategies=("byteslice", "wordslice"), twins=True),
    Parameter("sm4.basis_blocks", "kernel", "the blocks of the fused round's 4x4 grid M'_L computed as products "
              "(each other block the XOR of some of them; gen/kernels/sm4_byteslice.py bases)", _bases,
              strategies=("byteslice",)),
    Parameter("zuc.block_form", "kernel", "the keystream block's form: 16 rounds unrolled with the LFSR in "
              "registers, unrolled with its cells in the state array, or rolled (a loop over a ring)",
              lambda: BLOCK_FORMS),
    *_per_cipher("schedule_before_ra", "GCC schedules the kernel's functions before register allocation too "
                 "(KC_SCHEDULE_BEFORE_RA)", lambda: BOOLEAN),
    *_per_cipher("asm_pressure_schedule", "the assembly twin's functions are scheduled for low register "
                 "pressure before allocation (gen/backends/schedule.py)", lambda: BOOLEAN),
]}


def parameter(name):
    try:
        return PARAMETERS[name]
    except KeyError:
        raise ValueError(f"no parameter {name!r}; known: {', '.join(PARAMETERS)}") from None


@dataclass(frozen=True)
class Choices:
    """Parameter name -> its value, or for one keyed by target or kernel {key: value}."""

    values: dict
    rankings: dict = field(default_factory=dict)   # parameter name -> the ranking that chose it: a line, or {key: line}

    def get(self, name, key=None):
        value = self.values[name]
        if PARAMETERS[name].keyed == "one":
            return value
        try:
            return value[key]
        except KeyError:
            raise ValueError(f"gen/choices.toml: {name} has no value for {PARAMETERS[name].keyed} {key!r}; "
                             f"`gen explore {PARAMETERS[name].cipher} --apply` writes one") from None

    def of(self, name, strategy, target):
        """`name`'s value for the kernel `strategy` on `target`."""
        return self.get(name, PARAMETERS[name].key(strategy, target))

    def of_kernel(self, cipher, strategy, target):
        """{name: value} of `cipher`'s parameters keyed by kernel or by target
        that apply to `strategy` on `target`."""
        return {name: self.of(name, strategy, target) for name, p in PARAMETERS.items()
                if p.cipher == cipher and p.keyed != "one" and (not p.strategies or strategy in p.strategies)}

    def with_choice(self, assignment):
        """These choices with `name=value` or `name.<key>=value` (gen --choose) in place."""
        key_text, sep, text = assignment.partition("=")
        name, key = key_text.strip(), None
        if name not in PARAMETERS:
            base, _, key = name.rpartition(".")
            if base not in PARAMETERS or PARAMETERS[base].keyed == "one":
                raise ValueError(f"--choose {assignment!r}: no parameter {name!r}; known: {', '.join(PARAMETERS)}")
            name = base
        param = PARAMETERS[name]
        value = _value(text.strip()) if sep else None
        allowed = param.values()
        if value not in allowed or isinstance(value, bool) != isinstance(allowed[0], bool):
            raise ValueError(f"--choose {assignment!r}: {name} takes {_spell(allowed)}")
        values = dict(self.values)
        if param.keyed == "one":
            values[name] = value
        else:
            if key is not None and key not in values[name]:
                raise ValueError(f"--choose {assignment!r}: {name} has no {param.keyed} {key!r}; "
                                 f"known: {', '.join(values[name])}")
            values[name] = {k: value if key in (None, k) else v for k, v in values[name].items()}
        return Choices(values, self.rankings)


def _value(text):
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return text


def _spell(values):
    if isinstance(values[0], str):
        return " or ".join(values)
    if isinstance(values[0], bool):
        return "true or false"
    if tuple(values) == tuple(range(values[0], values[-1] + 1)) and len(values) > 4:
        return f"{values[0]}..{values[-1]}"
    return ", ".join(map(str, values))


def load(path=PATH):
    """The checked-in choices."""
    data = tomllib.loads(Path(path).read_text())
    values, rankings = {}, {}
    for name, param in PARAMETERS.items():
        cipher, what = name.split(".")
        entry = data.get(cipher, {}).get(what)
        if entry is None or "value" not in entry:
            raise ValueError(f"{path}: no [{name}] value")
        value = entry["value"]
        if (param.keyed == "one") == isinstance(value, dict):
            raise ValueError(f"{path}: {name} takes {'one value' if param.keyed == 'one' else f'a table of {param.keyed} = value'}")
        if isinstance(value, dict):
            missing = [k for k in param.keys() if k not in value]
            if missing:
                raise ValueError(f"{path}: {name} has no value for {', '.join(missing)}")
        values[name] = dict(value) if isinstance(value, dict) else value
        rankings[name] = entry.get("ranking", "")
    return Choices(values, rankings)


def dump(choices):
    """The text of gen/choices.toml holding `choices`."""
    lines = [HEADER]
    for name in PARAMETERS:
        ranking = choices.rankings.get(name, "")
        lines.append(f"[{name}]")
        if isinstance(ranking, str):
            lines.append(f"ranking = {_quote(ranking)}")
        value = choices.values[name]
        if isinstance(value, dict):
            lines.append(f"[{name}.value]")
            lines += [f"{k} = {_toml(v)}" for k, v in value.items()]
        else:
            lines.append(f"value = {_toml(value)}")
        if isinstance(ranking, dict):
            lines.append(f"[{name}.ranking]")
            lines += [f"{k} = {_quote(line)}" for k, line in ranking.items()]
        lines.append("")
    return "\n".join(lines)


def _toml(value):
    if isinstance(value, str):
        return _quote(value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
