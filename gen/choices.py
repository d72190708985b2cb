"""The generator's choices, checked in: gen/choices.toml.

Each choice is a named parameter whose values the generator enumerates
(gen/explore.py SPACES): `sm4.decomposition` (one for every kernel, since
the key schedule's sliced round keys depend on it), `zuc.s1_isomorphism`
(one per target).  `gen` and `gen check` read the file and never explore,
so they stay deterministic, offline and fast; `gen explore <cipher>
--apply` rewrites the file from a new ranking, and `gen --choose
name=value` (or name.<target>=value) overrides an entry for one run.  The
file keeps, beside each value, the ranking that chose it."""

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

PATH = Path(__file__).with_name("choices.toml")
HEADER = """\
# The generator's choices (gen/choices.py): what `gen` and `gen check` use.
# `gen explore <cipher> --apply` rewrites this file from a new ranking;
# `gen --choose name=value` (or name.<target>=value) overrides an entry for one run.
"""


def _space_size(name):
    from .explore import SPACES
    return next(space for space in SPACES.values() if space.name == name).size()


# Each parameter: whether it takes one value per target (else one for every kernel).
PER_TARGET = {"sm4.decomposition": False, "zuc.s1_isomorphism": True}


@dataclass(frozen=True)
class Choices:
    """Parameter name -> its value (an int) or, for a per-target one, {target name: value}."""

    values: dict
    rankings: dict = field(default_factory=dict)   # parameter name -> the ranking that chose it, one line

    def get(self, name, target=None):
        value = self.values[name]
        if not PER_TARGET[name]:
            return value
        try:
            return value[target]
        except KeyError:
            raise ValueError(f"gen/choices.toml: {name} has no value for target {target!r}") from None

    def with_choice(self, assignment):
        """These choices with `name=value` or `name.<target>=value` (gen --choose) in place."""
        key, sep, text = assignment.partition("=")
        name, target = key.strip(), None
        if name not in PER_TARGET:
            base, _, target = name.rpartition(".")
            if base not in PER_TARGET or not PER_TARGET[base]:
                raise ValueError(f"--choose {assignment!r}: no parameter {name!r}; known: {', '.join(PER_TARGET)}")
            name = base
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"--choose {assignment!r}: the value must be an integer") from None
        if not sep or not 0 <= value < _space_size(name):
            raise ValueError(f"--choose {assignment!r}: {name} takes 0..{_space_size(name) - 1}")
        values = dict(self.values)
        if PER_TARGET[name]:
            if target is not None and target not in values[name]:
                raise ValueError(f"--choose {assignment!r}: {name} has no target {target!r}")
            values[name] = {t: value if target in (None, t) else v for t, v in values[name].items()}
        else:
            values[name] = value
        return Choices(values, self.rankings)


def load(path=PATH):
    """The checked-in choices."""
    data = tomllib.loads(Path(path).read_text())
    values, rankings = {}, {}
    for name, per_target in PER_TARGET.items():
        cipher, param = name.split(".")
        entry = data.get(cipher, {}).get(param)
        if entry is None or "value" not in entry:
            raise ValueError(f"{path}: no [{name}] value")
        value = entry["value"]
        if per_target != isinstance(value, dict):
            raise ValueError(f"{path}: {name} takes {'a table of target = value' if per_target else 'one value'}")
        values[name] = dict(value) if per_target else value
        rankings[name] = entry.get("ranking", "")
    return Choices(values, rankings)


def dump(choices):
    """The text of gen/choices.toml holding `choices`."""
    lines = [HEADER]
    for name in PER_TARGET:
        lines.append(f"[{name}]")
        lines.append(f"ranking = {_quote(choices.rankings.get(name, ''))}")
        value = choices.values[name]
        if isinstance(value, dict):
            lines.append(f"value = {{ {', '.join(f'{t} = {v}' for t, v in value.items())} }}")
        else:
            lines.append(f"value = {value}")
        lines.append("")
    return "\n".join(lines)


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
