"""Dispatch by measurement (gen/dispatch.py, generated/src/kc_dispatch.c):
gen/dispatch.toml read and written back, rendered deterministically; the C
record lookup (match, no match); KC_DISPATCH accepted, refused and passed
over for a kernel this CPU cannot run; what kcrypt --list-impls says."""

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gen import dispatch
from gen.emit import dispatch_files

from conftest import ROOT

SLOTS = {"sm4": ("bulk", "serial"), "ublock": ("bulk", "serial"), "zuc": ("bulk",)}
VARIANTS = {"sm4": "sm4", "ublock128_128": "ublock", "ublock128_256": "ublock", "ublock256_256": "ublock",
            "zuc128": "zuc", "zuc256": "zuc", "zuc_nea6": "zuc"}


def a_record(**change):
    fields = dict(vendor="GenuineIntel", family=6, model=143, features=("ssse3", "aes", "avx2"), cpu="a test CPU",
                  measured="by hand, for this test", order={"sm4.bulk": ("byteslice_avx2_gfni", "wordslice_avx2_vaes")},
                  gbps={"sm4.bulk": {"byteslice_avx2_gfni": 12.5, "wordslice_avx2_vaes": 7.25}})
    fields.update(change)
    return dispatch.Record(**fields)


# ---- the data file ----------------------------------------------------------------

def test_records_read_back_as_written():
    records = [a_record(), a_record(model=207, order={"zuc.bulk": ("lanes_avx2_gfni",)}, gbps={"zuc.bulk": {}})]
    assert dispatch.parse(dispatch.dumps(records)) == records


def test_the_checked_in_file_is_what_dumps_writes():
    assert dispatch.dumps(dispatch.load()) == dispatch.PATH.read_text()


@pytest.mark.parametrize("change,message", [
    (dict(order={"sm4.fast": ("byteslice_avx2_gfni",)}), "unknown slot"),
    (dict(order={"zuc.serial": ("lanes_avx2_gfni",)}), "unknown slot"),
    (dict(order={"sm4.bulk": ("byteslice_avx9",)}), "unknown or repeated kernels"),
    (dict(order={"sm4.bulk": ("byteslice_avx2_gfni", "byteslice_avx2_gfni")}), "unknown or repeated kernels"),
    (dict(features=("avx2", "avx1024")), "unknown features"),
])
def test_a_wrong_record_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        dispatch.parse(dispatch.dumps([a_record(**change)]))


def test_one_cpu_has_one_record():
    with pytest.raises(ValueError, match="two records"):
        dispatch.parse(dispatch.dumps([a_record(), a_record(cpu="the same CPU again")]))
    assert dispatch.with_record([a_record()], a_record(cpu="new")) == [a_record(cpu="new")]


def test_rendering_is_deterministic_and_checked_in():
    first, second = dispatch_files.files(), dispatch_files.files()
    assert first == second
    for path, text in first.items():
        assert (ROOT / "generated" / path).read_text() == text


def test_rendering_lists_each_recorded_order():
    text = dispatch_files.files([a_record()])["src/kc_dispatch.c"]
    assert '"GenuineIntel", 6, 143,' in text
    body = text.split("record0_sm4_bulk[] = {", 1)[1].split("};", 1)[0]
    assert [w.strip().strip('",') for w in body.split() if w.strip() != "NULL,"] == list(a_record().order["sm4.bulk"])
    assert "record0_sm4_serial" not in text  # not measured: that role keeps the feature order


# ---- the C lookup and the override check --------------------------------------------

class Identity(ctypes.Structure):
    _fields_ = [("vendor", ctypes.c_char * 13), ("family", ctypes.c_uint), ("model", ctypes.c_uint)]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    """kc_cpu.c and kc_dispatch.c rendered with a_record() alone, as a shared object."""
    folder = tmp_path_factory.mktemp("dispatch")
    for path, text in dispatch_files.files([a_record()]).items():
        (folder / os.path.basename(path)).write_text(text)
    for name in ("include/kc_cpu.h", "src/kc_cpu.c"):
        (folder / os.path.basename(name)).write_text((ROOT / "generated" / name).read_text())
    shared = folder / "libdispatch_test.so"
    subprocess.run(["gcc", "-O1", "-fPIC", "-shared", "-std=c11", "-Wall", "-Werror", f"-I{folder}", "-o", str(shared),
                    str(folder / "kc_cpu.c"), str(folder / "kc_dispatch.c")], check=True, capture_output=True)
    out = ctypes.CDLL(str(shared))
    out.kc_dispatch_record_key.restype = ctypes.c_char_p
    return out


def mask(features):
    return dispatch.Record("", 0, 0, tuple(features), "", "", {}, {}).feature_mask


@pytest.mark.parametrize("vendor,family,model,features,found", [
    (b"GenuineIntel", 6, 143, ("ssse3", "aes", "avx2"), 0),
    (b"GenuineIntel", 6, 144, ("ssse3", "aes", "avx2"), -1),             # another model
    (b"AuthenticAMD", 6, 143, ("ssse3", "aes", "avx2"), -1),             # another vendor
    (b"GenuineIntel", 25, 143, ("ssse3", "aes", "avx2"), -1),            # another family
    (b"GenuineIntel", 6, 143, ("ssse3", "aes"), -1),                     # a feature fewer (a VM hiding AVX2)
    (b"GenuineIntel", 6, 143, ("ssse3", "aes", "avx2", "gfni"), -1),     # a feature more
])
def test_record_lookup(lib, vendor, family, model, features, found):
    ident = Identity(vendor, family, model)
    assert lib.kc_dispatch_record_find(ctypes.byref(ident), ctypes.c_uint(mask(features))) == found
    assert lib.kc_dispatch_record_key(0) == a_record().key.encode()
    assert lib.kc_dispatch_record_key(1) is None


@pytest.mark.parametrize("text,error", [
    ("", None), ("sm4=byteslice_avx2_gfni", None), ("sm4.serial=wordslice_ssse3_aesni,zuc=lanes_neon_aes", None),
    ("ublock=nibbleslice_avx512,ublock.serial=register_ssse3", "ublock.serial is given twice"),
    ("sm4=byteslice_avx9", "sm4 has no kernel 'byteslice_avx9'"),
    ("aes=byteslice_avx2_gfni", "unknown cipher 'aes'"),
    ("zuc.serial=lanes_avx2_gfni", "zuc has no role 'serial'"),
    ("sm4", "is not CIPHER[.ROLE]=KERNEL"),
    ("sm4=byteslice_avx2_gfni,", "'' is not CIPHER[.ROLE]=KERNEL"),
    ("sm4 = byteslice_avx2_gfni", "unknown cipher 'sm4 '"),
])
def test_override_check(lib, text, error):
    err = ctypes.create_string_buffer(200)
    rc = lib.kc_dispatch_check(text.encode(), err, ctypes.c_size_t(len(err)))
    assert rc == (0 if error is None else -1)
    if error is not None:
        assert error in err.value.decode()


# ---- kcrypt --list-impls -------------------------------------------------------------

def list_impls(build, override=None):
    env = {k: v for k, v in os.environ.items() if k != "KC_DISPATCH"}
    if override is not None:
        env["KC_DISPATCH"] = override
    return subprocess.run([str(build / "kcrypt"), "--list-impls"], capture_output=True, text=True, env=env)


def defaults(out):
    """{(variant, role): (kernel, source, rest)} and this CPU's key, from --list-impls."""
    table, key = {}, None
    for line in out.splitlines():
        words = line.split(maxsplit=5)
        if words[:2] == ["dispatch", "cpu"]:
            key = words[2]
        elif words[0] == "dispatch":
            table[(words[1], words[2])] = (words[3], words[4], words[5] if len(words) > 5 else "")
        else:
            assert len(words) == 4, line
    return table, key


def native(out):
    return {(w[0], f"{w[1]}_{w[2]}") for w in (line.split() for line in out.splitlines())
            if w[0] != "dispatch" and w[3] == "native"}


def test_list_impls_names_a_runnable_default_per_variant_and_role(harness_build):
    proc = list_impls(harness_build)
    assert proc.returncode == 0, proc.stderr
    table, key = defaults(proc.stdout)
    assert set(table) == {(v, r) for v, c in VARIANTS.items() for r in SLOTS[c]}
    runs = native(proc.stdout)
    for (variant, role), (kernel, source, _) in table.items():
        assert (variant, kernel) in runs, (variant, role, kernel)
        assert source in ("record", "feature-order")
    vendor, family, model, _ = key.split("/", 3)
    assert vendor and int(family) >= 0 and int(model) >= 0


def test_the_record_of_this_cpu_orders_the_defaults(harness_build):
    """With this CPU's record the default of each recorded slot is its first
    kernel that runs here, and the output names the record's key; without
    one, every default is the feature order's."""
    proc = list_impls(harness_build)
    table, key = defaults(proc.stdout)
    runs = native(proc.stdout)
    mine = [r for r in dispatch.load() if r.key == key]
    for (variant, role), (kernel, source, rest) in table.items():
        order = mine[0].order.get(f"{VARIANTS[variant]}.{role}") if mine else None
        if order and any((variant, k) in runs for k in order):
            assert (kernel, source, rest) == (next(k for k in order if (variant, k) in runs), "record", key)
        else:
            assert source == "feature-order"


def test_override_is_taken(harness_build):
    proc = list_impls(harness_build, "sm4=byteslice_ssse3_aesni,ublock.serial=register_ssse3_asm")
    assert proc.returncode == 0, proc.stderr
    table, _ = defaults(proc.stdout)
    assert table[("sm4", "bulk")] == ("byteslice_ssse3_aesni", "override", "")
    assert table[("sm4", "serial")] == ("byteslice_ssse3_aesni", "override", "")
    for variant in ("ublock128_128", "ublock256_256"):
        assert table[(variant, "serial")] == ("register_ssse3_asm", "override", "")
        assert table[(variant, "bulk")][1] != "override"
    assert table[("zuc128", "bulk")][1] != "override"


def test_override_runs_the_kernel_it_names(harness_build):
    """kcrypt with no -t under the override gives the same bytes (any kernel
    computes SM4), and a kernel this CPU cannot run is never tried."""
    data = os.urandom(4096 + 5)
    args = [str(harness_build / "kcrypt"), "sm4", "ctr", "-e", "-k", "00" * 16, "-i", "11" * 16]
    plain = subprocess.run(args, input=data, capture_output=True, check=True).stdout
    for override in ("sm4=byteslice_ssse3_aesni", "sm4=rounds4_neon_sm4"):
        env = {**os.environ, "KC_DISPATCH": override}
        assert subprocess.run(args, input=data, capture_output=True, check=True, env=env).stdout == plain


def test_override_of_a_kernel_this_cpu_cannot_run_is_passed_over(harness_build):
    plain, _ = defaults(list_impls(harness_build).stdout)
    proc = list_impls(harness_build, "sm4=rounds4_neon_sm4")
    assert proc.returncode == 0, proc.stderr
    table, _ = defaults(proc.stdout)
    for role in ("bulk", "serial"):
        kernel, source, rest = table[("sm4", role)]
        assert (kernel, source) == plain[("sm4", role)][:2]
        assert rest.endswith("(KC_DISPATCH's rounds4_neon_sm4 does not run here)")


@pytest.mark.parametrize("override,message", [
    ("sm4=byteslice_avx9", "KC_DISPATCH: sm4 has no kernel 'byteslice_avx9'"),
    ("zuc.serial=lanes_avx2_gfni", "KC_DISPATCH: zuc has no role 'serial'"),
    ("ublock:nibbleslice_avx512", "KC_DISPATCH: 'ublock:nibbleslice_avx512' is not CIPHER[.ROLE]=KERNEL"),
])
def test_kcrypt_refuses_a_wrong_override(harness_build, override, message):
    proc = list_impls(harness_build, override)
    assert proc.returncode == 2 and proc.stdout == ""
    assert message in proc.stderr


PICK = r"""
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
asked = []
RUNNABLE = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_char_p)
# Every kernel "runs" but the one named by sys.argv[2]; the address stands for the kernel.
runnable = RUNNABLE(lambda name: None if name.decode() == sys.argv[2] else (asked.append(name.decode()) or len(asked)))
lib.kc_dispatch_pick.restype = ctypes.c_void_p
for _ in range(2):
    lib.kc_dispatch_pick(0, 0, runnable, None)       # sm4, bulk
print(" ".join(asked))
"""


@pytest.mark.parametrize("override,unrunnable,asked,warning", [
    ("sm4=byteslice_ssse3_aesni", "", "byteslice_ssse3_aesni", ""),
    ("sm4=byteslice_ssse3_aesni", "byteslice_ssse3_aesni", "", ""),  # passed over; no record of this CPU here
    ("sm4=bogus", "", "", "KC_DISPATCH ignored: sm4 has no kernel 'bogus'\n"),
])
def test_pick_asks_for_the_override_once_and_warns_once(lib, tmp_path, override, unrunnable, asked, warning):
    """kc_dispatch_pick in a fresh process: the override's kernel asked for
    first and the pick kept (two calls, one question); a wrong KC_DISPATCH
    ignored with one line on stderr."""
    script = tmp_path / "pick.py"
    script.write_text(PICK)
    shared = next(Path(lib._name).parent.glob("libdispatch_test.so"))
    proc = subprocess.run([sys.executable, str(script), str(shared), unrunnable], capture_output=True, text=True,
                          env={**os.environ, "KC_DISPATCH": override})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == asked
    assert proc.stderr == (f"kcrypt library: {warning}" if warning else "")
