"""Dispatch by measurement: gen/dispatch.toml, the kernel order of each cipher
and role measured on a CPU, keyed by that CPU's identity.

A record holds, for one CPU (vendor string, family, model and the whole set
of kc_cpu.h features it reported), per slot "<cipher>.<role>" the kernels
fastest first as bench measured them, and the figures.  A role is the work a
default kernel is picked for: `bulk` (ECB, CBC decryption, CTR: many
independent blocks) and `serial` (CBC encryption: one block after another).
The generator renders the records into generated/src/kc_dispatch.c; the
library picks, per slot, the first kernel of the matching record that this
CPU and build run, and without a matching record keeps the feature order of
the registries (gen/backends' lists).  `gen dispatch record` writes a record
from bench runs (gen/dispatch_measure.py); `gen` and `gen check` only read
the file, so generated/ stays deterministic."""

import tomllib
from dataclasses import dataclass
from pathlib import Path

from .backends import cpu_features
from .emit import sm4_files, ublock_files, zuc_files

PATH = Path(__file__).with_name("dispatch.toml")
HEADER = """\
# Dispatch by measurement (gen/dispatch.py): per CPU, the kernel order of each
# cipher and role, fastest first, as bench measured it.  `gen dispatch record`
# writes this machine's record (`gen dispatch check` compares dispatch's
# default with the fastest kernel); `gen` renders the file into
# generated/src/kc_dispatch.c.  A CPU matches a record when vendor, family,
# model and the feature set (kc_cpu.h's names) are all equal.
"""

# Roles, in the order of kc_dispatch_role.
ROLES = ("bulk", "serial")


@dataclass(frozen=True)
class Cipher:
    """A cipher as dispatch names it: its kernels (every architecture's, the
    reference too) and the roles its library picks a default for."""
    name: str
    kernels: tuple
    roles: tuple


def ciphers():
    """The ciphers of kc_dispatch_cipher, in its order."""
    sm4 = tuple(sm4_files.impl_names()) + ("reference_scalar",)
    return (Cipher("sm4", sm4, ("bulk", "serial")),
            Cipher("ublock", tuple(ublock_files.impl_names()), ("bulk", "serial")),
            Cipher("zuc", tuple(zuc_files.impl_names()), ("bulk",)))


@dataclass(frozen=True)
class Record:
    vendor: str
    family: int
    model: int
    features: tuple  # kc_cpu.h feature names, in its bit order
    cpu: str         # the model name, for people
    measured: str    # how and when
    order: dict      # "<cipher>.<role>" -> (kernel, ...) fastest first
    gbps: dict       # "<cipher>.<role>" -> {kernel: Gbit/s}

    @property
    def key(self):
        """The identity as kcrypt --list-impls prints it."""
        return f"{self.vendor}/{self.family}/{self.model}/{','.join(self.features)}"

    @property
    def feature_mask(self):
        names = [f.name for f in cpu_features.FEATURES]
        return sum(1 << names.index(f) for f in self.features)


def _slot_names():
    return {f"{c.name}.{r}": c for c in ciphers() for r in c.roles}


def parse(text, source="gen/dispatch.toml"):
    """The records of a dispatch.toml text, checked: known slots, kernels and
    features, no CPU twice.  ValueError names what is wrong."""
    data = tomllib.loads(text)
    unknown = set(data) - {"record"}
    if unknown:
        raise ValueError(f"{source}: unknown tables {sorted(unknown)} (only [[record]])")
    slots = _slot_names()
    feature_names = [f.name for f in cpu_features.FEATURES]
    records = []
    for i, r in enumerate(data.get("record", [])):
        where = f"{source}: record {i + 1}"
        missing = {"vendor", "family", "model", "features", "cpu", "measured", "order"} - set(r)
        if missing:
            raise ValueError(f"{where}: missing {sorted(missing)}")
        bad = [f for f in r["features"] if f not in feature_names]
        if bad:
            raise ValueError(f"{where}: unknown features {bad} (kc_cpu.h names them: {', '.join(feature_names)})")
        features = tuple(f for f in feature_names if f in r["features"])
        order, gbps = {}, {}
        for slot, kernels in r["order"].items():
            if slot not in slots:
                raise ValueError(f"{where}: unknown slot '{slot}' (known: {', '.join(slots)})")
            bad = [k for k in kernels if k not in slots[slot].kernels]
            if bad or len(set(kernels)) != len(kernels):
                raise ValueError(f"{where}: {slot} names unknown or repeated kernels {bad or kernels}")
            order[slot] = tuple(kernels)
            gbps[slot] = dict(r.get("gbps", {}).get(slot, {}))
        records.append(Record(r["vendor"], int(r["family"]), int(r["model"]), features, r["cpu"], r["measured"],
                              order, gbps))
    keys = [rec.key for rec in records]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{source}: one CPU has two records")
    return records


def load(path=PATH):
    """The checked-in records (none when the file is absent)."""
    path = Path(path)
    return parse(path.read_text(), str(path)) if path.exists() else []


def _string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dumps(records):
    """dispatch.toml's text for `records` (what parse reads back)."""
    out = [HEADER.rstrip("\n")]
    for r in records:
        out += ["", "[[record]]", f"vendor = {_string(r.vendor)}", f"family = {r.family}", f"model = {r.model}",
                f"features = [{', '.join(_string(f) for f in r.features)}]", f"cpu = {_string(r.cpu)}",
                f"measured = {_string(r.measured)}", "", "[record.order]"]
        out += [f'"{slot}" = [{", ".join(_string(k) for k in kernels)}]' for slot, kernels in r.order.items()]
        for slot, figures in r.gbps.items():
            out += ["", f'[record.gbps."{slot}"]']
            out += [f"{k} = {v}" for k, v in figures.items()]
    return "\n".join(out) + "\n"


def with_record(records, new):
    """`records` with `new` in place of the record of the same CPU (or added)."""
    return [r for r in records if r.key != new.key] + [new]


def render_context(records):
    """What templates/kc_dispatch.*.j2 render: the ciphers, roles and records,
    each record's order as one list per (cipher, role) (None: no ranking)."""
    cs = ciphers()
    return dict(
        ciphers=cs, roles=ROLES,
        records=[dict(vendor=r.vendor, family=r.family, model=r.model, mask=r.feature_mask, key=r.key,
                      cpu=r.cpu, measured=r.measured,
                      order=[[r.order.get(f"{c.name}.{role}") for role in ROLES] for c in cs])
                 for r in records])
