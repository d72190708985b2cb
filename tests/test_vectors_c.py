"""harness/vectors_c.py, the build step that turns tests/vectors/*.json into the C tables
verify is linked with: every check it makes, on a file made wrong in just that way; the
tables, compiled and printed by a small C program, against the JSON; ZUC-256's 23-byte IV
packing; the build stopping on a bad file with the converter's message; a verify built with
vectors that do not fit the cipher's description (variant, key, IV, whole blocks: what only
the description knows) or without a cipher's file refusing to run; and a verify built with a
wrong SM4 round key failing its "key schedule" section.  (A wrong ciphertext:
tests/test_ublock_harness.py.)"""

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VECTORS = REPO / "tests" / "vectors"
sys.path.insert(0, str(REPO / "harness"))

import vectors_c  # noqa: E402

FILES = ("sm4", "ublock", "zuc")


def official():
    return {name: json.loads((VECTORS / f"{name}.json").read_text()) for name in FILES}


def write(folder, docs):
    for name, doc in docs.items():
        (folder / f"{name}.json").write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return folder


def del_(key):
    return lambda o: o.pop(key)


def set_(key, value):
    return lambda o: o.__setitem__(key, value)


def no_iv23(o):
    o.pop("iv23", None)


# (file, list, index, change of that vector or None for the whole document, message)
BAD = {
    "lengths differ": ("sm4", "cbc", 0, lambda o: o.__setitem__("ciphertext", o["ciphertext"][:-32]),
                       "sm4.json: cbc vector #1: plaintext and ciphertext lengths differ"),
    "key past the arrays": ("sm4", "ecb", 0, set_("key", "00" * 33),
                            "sm4.json: ecb vector #1: 'key' must be at most 32 bytes, got 33 bytes"),
    "iv past the arrays": ("sm4", "cbc", 0, set_("iv", "00" * 33),
                           "sm4.json: cbc vector #1: 'iv' must be at most 32 bytes"),
    "variant not a string": ("ublock", "vectors", 0, set_("variant", 128),
                             "ublock.json: vectors vector #1: 'variant' must be a string"),
    "ctr iv missing": ("sm4", "ctr", 0, del_("iv"), "sm4.json: ctr vector #1: missing hex string 'iv'"),
    "bad hex": ("sm4", "ecb", 1, set_("plaintext", "0g" * 16),
                "sm4.json: ecb vector #2: 'plaintext' is not an even number of hex digits"),
    "odd hex": ("sm4", "ecb", 1, set_("plaintext", "0" * 31),
                "sm4.json: ecb vector #2: 'plaintext' is not an even number of hex digits"),
    "iterations zero": ("sm4", "ecb", 1, set_("iterations", 0),
                        "sm4.json: ecb vector #2: 'iterations' must be a positive integer"),
    "iterations a string": ("ublock", "vectors", 1, set_("iterations", "1000000"),
                            "ublock.json: vectors vector #2: 'iterations' must be a positive integer"),
    "iterations true": ("ublock", "vectors", 1, set_("iterations", True),
                        "ublock.json: vectors vector #2: 'iterations' must be a positive integer"),
    "round keys": ("sm4", "ecb", 0, set_("round_keys_first_last", ["f12186f9"]),
                   "sm4.json: ecb vector #1: 'round_keys_first_last' must be 2 8-digit hex words"),
    "zuc128 key": ("zuc", "zuc128_keystream", 2, set_("key", "00" * 32),
                   "zuc.json: zuc128_keystream vector #3: 'key' must be 16 bytes"),
    "zuc256 iv25": ("zuc", "zuc256_keystream", 0, set_("iv25", "00" * 24),
                    "zuc.json: zuc256_keystream vector #1: 'iv25' must be 25 bytes"),
    "zuc256 iv given as iv": ("zuc", "zuc256_mac", 1, lambda o: o.__setitem__("iv", o.pop("iv25")),
                              "zuc.json: zuc256_mac vector #2: missing hex string 'iv25'"),
    "zuc256 iv23": ("zuc", "zuc256_keystream", 1, set_("iv23", "ff" * 22),
                    "zuc.json: zuc256_keystream vector #2: 'iv23' must be 23 bytes"),
    "bits past the message": ("zuc", "zuc256_mac", 0, lambda o: o.__setitem__("bits", 8 * len(o["message"]) // 2 + 1),
                              "zuc.json: zuc256_mac vector #1: 'bits' must be an integer no larger than"),
    "bits negative": ("zuc", "zuc128_mac", 1, set_("bits", -1),
                      "zuc.json: zuc128_mac vector #2: 'bits' must be an integer"),
    "no tag": ("zuc", "zuc128_mac", 0, del_("tag32"), "zuc.json: zuc128_mac vector #1: no tag32/tag64/tag128"),
    "tag length": ("zuc", "zuc256_mac", 3, set_("tag64", "00" * 4),
                   "zuc.json: zuc256_mac vector #4: 'tag64' must be 8 bytes"),
    "zuc128 tag64": ("zuc", "zuc128_mac", 0, set_("tag64", "00" * 8),
                     "zuc.json: zuc128_mac vector #1: ZUC-128 (128-EIA3) has only tag32"),
    "keystream word": ("zuc", "zuc128_keystream", 1, lambda o: o["keystream"].__setitem__(1, "1234567"),
                       "zuc.json: zuc128_keystream vector #2: 'keystream' must be a non-empty list of 8-digit"),
    "keystream empty": ("zuc", "zuc256_keystream", 0, set_("keystream", []),
                        "zuc.json: zuc256_keystream vector #1: 'keystream' must be a non-empty list"),
    "keystream too long": ("zuc", "zuc128_keystream", 0, set_("keystream", ["00000000"] * 65),
                           "zuc.json: zuc128_keystream vector #1: more than 64 keystream words"),
    "nea6 iv": ("zuc", "nea6_encrypt", 0, set_("iv", "00" * 25),
                "zuc.json: nea6_encrypt vector #1: 'iv' must be 16 bytes"),
    "nea6 ciphertext length": ("zuc", "nea6_encrypt", 1, set_("ciphertext", "00"),
                               "zuc.json: nea6_encrypt vector #2: 'ciphertext' must be 18 bytes"),
    "nea6 bits past the bytes": ("zuc", "nea6_encrypt", 1, set_("bits", 8),
                                 "zuc.json: nea6_encrypt vector #2: 'bits' must be an integer no larger than 8 x the "
                                 "message bytes, and the message no longer than its bits' bytes"),
    "nia6 tag short": ("zuc", "nia6_mac", 0, set_("tag", "00" * 3),
                       "zuc.json: nia6_mac vector #1: the NIA6 tag is 3 bytes, not 4..16"),
    "nea6 unused bits": ("zuc", "nea6_encrypt", 7, set_("ciphertext", "df"),
                         "zuc.json: nea6_encrypt vector #8: the ciphertext's unused low bits"),
    "zuc group missing": ("zuc", "zuc128_mac", None, del_("zuc128_mac"),
                          "zuc.json: 'zuc128_mac' is missing or not a non-empty list"),
    "zuc group empty": ("zuc", "zuc256_keystream", None, set_("zuc256_keystream", []),
                        "zuc.json: 'zuc256_keystream' is missing or not a non-empty list"),
    "not a list": ("sm4", "cbc", None, set_("cbc", {"key": "00"}), "sm4.json: 'cbc' is not a list of objects"),
    "no vectors": ("ublock", "vectors", None, set_("vectors", []), "ublock.json holds no vectors"),
    "gcm iv empty": ("sm4", "gcm", 0, set_("iv", ""), "sm4.json: gcm vector #1: GCM's IV must not be empty"),
    "gcm tag short": ("sm4", "gcm", 0, set_("tag", "00" * 3),
                      "sm4.json: gcm vector #1: the GCM tag is 3 bytes, not 4..16"),
    "gcm aad missing": ("sm4", "gcm", 0, del_("aad"), "sm4.json: gcm vector #1: missing hex string 'aad'"),
    "gcm lengths differ": ("sm4", "gcm", 0, set_("ciphertext", "00"),
                           "sm4.json: gcm vector #1: plaintext and ciphertext lengths differ"),
    "ccm nonce short": ("sm4", "ccm", 0, set_("iv", "00" * 6),
                        "sm4.json: ccm vector #1: the CCM nonce ('iv') is 6 bytes, not 7..13"),
    "ccm tag odd": ("sm4", "ccm", 0, set_("tag", "00" * 5),
                    "sm4.json: ccm vector #1: the CCM tag is 5 bytes, not 4..16 in steps of 2"),
    "xts tweak": ("sm4", "xts", 2, set_("iv", "00" * 15),
                  "sm4.json: xts vector #3: the XTS tweak ('iv') must be 16 bytes, got 15"),
    "xts short unit": ("sm4", "xts", 2, lambda o: o.update(plaintext="00" * 15, ciphertext="00" * 15),
                       "sm4.json: xts vector #3: an XTS data unit is at least 16 bytes, got 15"),
    "xts key odd": ("sm4", "xts", 0, set_("key", "00" * 33),
                    "sm4.json: xts vector #1: an XTS key is two keys of one length (K1 || K2)"),
    "xts rule": ("sm4", "xts", 1, set_("tweak_rule", "cmac"),
                 "sm4.json: xts vector #2: 'tweak_rule' must be one of ieee, gb"),
    "xts rule missing": ("sm4", "xts", 1, del_("tweak_rule"),
                         "sm4.json: xts vector #2: 'tweak_rule' must be one of ieee, gb"),
    "cmac tag long": ("sm4", "cmac", 1, set_("tag", "00" * 17),
                      "sm4.json: cmac vector #2: the tag is 17 bytes, not 1..16"),
    "cmac message missing": ("sm4", "cmac", 0, del_("message"),
                             "sm4.json: cmac vector #1: missing hex string 'message'"),
    "cbc_mac partial": ("sm4", "cbc_mac", 0, set_("message", "00" * 17),
                        "sm4.json: cbc_mac vector #1: CBC-MAC's message must be whole 16-byte blocks, at least one; "
                        "got 17 bytes"),
    "result": ("sm4", "gcm", 0, set_("result", "rejected"),
               "sm4.json: gcm vector #1: 'result' must be valid or invalid"),
    "mode list not a list": ("sm4", "ccm", None, set_("ccm", {"key": "00"}),
                             "sm4.json: 'ccm' is not a list of objects"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_each_check_names_file_group_vector_and_fault(tmp_path, case):
    name, group, index, change, message = BAD[case]
    docs = official()
    change(docs[name] if index is None else docs[name][group][index])
    write(tmp_path, docs)
    with pytest.raises(vectors_c.VectorError) as e:
        vectors_c.c_source(tmp_path)
    assert str(e.value).startswith(f"{tmp_path}/{message}"), str(e.value)


def test_unknown_mode_in_a_vectors_list(tmp_path):
    docs = official()
    docs["sm4"] = {"vectors": [dict(docs["sm4"]["cbc"][0], mode="ofb")]}
    write(tmp_path, docs)
    with pytest.raises(vectors_c.VectorError, match=r"sm4.json: vectors vector #1: unknown mode 'ofb'"):
        vectors_c.c_source(tmp_path)


def test_a_file_of_mode_vectors_only(tmp_path):
    """A block cipher's file with mode lists and no ECB/CBC/CTR ones: no block table, its
    mode table as the file says."""
    docs = official()
    docs["sm4"] = {"xts": docs["sm4"]["xts"], "gcm": docs["sm4"]["gcm"]}
    got = printed(write(tmp_path, docs), tmp_path)
    n = len(docs["sm4"]["gcm"]) + 3
    assert got[0].split()[:3] == ["sm4", "0", "1"] and got[1] == f"modes {n} 0"
    assert got[1:n + 2] == mode_lines("sm4", docs["sm4"])
    assert got[2].startswith("sm4 gcm vector #1 (RFC 8998") and got[n - 1].startswith("sm4 xts vector #1 (GB/T 17964")


def test_a_file_name_that_is_no_cipher_name(tmp_path):
    write(tmp_path, {**official(), "SM-4": official()["sm4"]})
    with pytest.raises(vectors_c.VectorError, match=r"SM-4.json: a vector file's name must be <cipher>.json"):
        vectors_c.c_source(tmp_path)


def test_an_empty_folder(tmp_path):
    with pytest.raises(vectors_c.VectorError, match="no vector files"):
        vectors_c.c_source(tmp_path)


@pytest.mark.parametrize("text,message", [("{", "not JSON"), ("[]", "not a JSON object")])
def test_a_file_that_is_not_an_object(tmp_path, text, message):
    write(tmp_path, {**official(), "zuc": text})
    with pytest.raises(vectors_c.VectorError, match=f"zuc.json: {message}"):
        vectors_c.c_source(tmp_path)


def test_command_line_says_what_is_wrong_and_writes_nothing(tmp_path):
    docs = official()
    docs["sm4"]["ctr"][0]["iv"] = "0"
    write(tmp_path, docs)
    out = tmp_path / "out.c"
    proc = subprocess.run([sys.executable, str(REPO / "harness" / "vectors_c.py"), "--dir", str(tmp_path),
                           "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr == (f"vectors_c.py: error: {tmp_path}/sm4.json: ctr vector #1: "
                           "'iv' is not an even number of hex digits\n")
    assert not out.exists()


def test_output_rewritten_only_when_it_changes(tmp_path):
    out = tmp_path / "t.c"
    assert vectors_c.main(["-o", str(out)]) == 0
    before = out.stat().st_mtime_ns
    assert vectors_c.main(["-o", str(out)]) == 0
    assert out.stat().st_mtime_ns == before
    out.write_text("stale")
    assert vectors_c.main(["-o", str(out)]) == 0
    assert out.read_text() == vectors_c.c_source(VECTORS)


# ---- ZUC-256's 23-byte IV -----------------------------------------------------------------

def test_pack_iv23_fields_most_significant_first():
    """IV17..IV24 = 1..8 as 6-bit fields: 000001 000010 ... 001000 = 04 20 c4 14 61 c8."""
    iv25 = bytes(range(100, 117)) + bytes(range(1, 9))
    assert vectors_c.pack_iv23(iv25) == bytes(range(100, 117)) + bytes.fromhex("0420c41461c8")
    assert vectors_c.pack_iv23(bytes(17) + bytes([0x40]) + bytes(7)) is None
    assert vectors_c.pack_iv23(bytes(24) + bytes([0x80])) is None


def test_packed_iv23_is_the_published_one():
    """zuc256_keystream #2 publishes both forms; packing its iv25 gives its iv23."""
    v = official()["zuc"]["zuc256_keystream"][1]
    assert vectors_c.pack_iv23(bytes.fromhex(v["iv25"])) == bytes.fromhex(v["iv23"])


# ---- The tables, compiled ----------------------------------------------------------------

PRINTER = r"""
#include <stdio.h>
#include "vectors.h"
static void hex(const uint8_t *p, size_t n) {
  putchar(' ');
  for (size_t i = 0; i < n; i++) printf("%02x", p[i]);
}
static void block(const kc_vectors *t) {
  printf("%s %zu %d %s\n", t->cipher, t->n, t->zuc == NULL, t->path);
  for (size_t i = 0; i < t->n; i++) {
    const vb_vector *v = &t->block[i];
    printf("%s|%d %s %ld", v->label, (int)v->mode, v->variant, v->iterations);
    hex(v->key, v->key_len), hex(v->iv, v->iv_len), hex(v->pt, v->len), hex(v->ct, v->len);
    if (v->has_round_keys) printf(" %08x %08x", v->round_keys[0], v->round_keys[1]);
    putchar('\n');
  }
  printf("modes %zu %d\n", t->n_modes, t->modes == NULL);
  for (size_t i = 0; i < t->n_modes; i++) {
    const kc_mode_vector *m = &t->modes[i];
    printf("%s|%d %s", m->label, (int)m->mode, m->variant);
    hex(m->key, m->key_len), hex(m->iv, m->iv_len), hex(m->aad, m->aad_len), hex(m->in, m->len);
    hex(m->out, m->mode == KC_VMODE_CMAC || m->mode == KC_VMODE_CBC_MAC ? 0 : m->len), hex(m->tag, m->tag_len);
    printf(" %d %d\n", (int)m->tweak_rule, m->invalid);
  }
}
int main(void) {
  if (KC_N_VECTOR_FILES != 3) return 1;
  block(&KC_VECTOR_FILES[0]);
  block(&KC_VECTOR_FILES[1]);
  const kc_vectors *t = &KC_VECTOR_FILES[2];
  printf("%s %zu %d %s\n", t->cipher, t->n, t->block == NULL, t->path);
  for (size_t i = 0; i < t->n; i++) {
    const zuc_vector *v = &t->zuc[i];
    printf("%s|%d", v->label, (int)v->variant);
    hex(v->key, sizeof v->key), hex(v->iv, v->iv_len);
    if (v->keystream) hex(v->keystream, v->ks_bytes);
    else {
      printf(" %zu", v->bits), hex(v->msg, (v->bits + 7) / 8);
      if (v->ct) printf(" ct"), hex(v->ct, (v->bits + 7) / 8);
      if (v->nia6_tag_bytes) printf(" nia6"), hex(v->nia6_tag, v->nia6_tag_bytes);
      for (int k = 0; k < KC_ZUC_TAGS; k++) if (v->has_tag[k]) printf(" %d", k), hex(v->tag[k], 4 << k);
    }
    putchar('\n');
  }
  return 0;
}
"""


def printed(folder, tmp_path):
    """The tables converted from `folder`, compiled with PRINTER and run."""
    (tmp_path / "tables.c").write_text(vectors_c.c_source(folder))
    (tmp_path / "printer.c").write_text(PRINTER)
    exe = tmp_path / "printer"
    subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{REPO / 'harness' / 'c'}",
                    f"-I{REPO / 'generated' / 'include'}", str(tmp_path / "printer.c"), str(tmp_path / "tables.c"),
                    "-o", str(exe)], check=True, capture_output=True, text=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()


def padded(text, size=32):
    return (bytes.fromhex(text) + bytes(size)).hex()[:2 * size]


def mode_lines(name, doc):
    """The printer's lines of a block cipher's mode lists (gcm, ccm, xts, cmac, cbc_mac)."""
    out = []
    for number, mode in enumerate(("gcm", "ccm", "xts", "cmac", "cbc_mac")):
        for i, v in enumerate(doc.get(mode, [])):
            full = name + v.get("variant", "").replace("/", "_")
            source = f" ({v['source'][:60]})" if "source" in v else ""
            mac = mode in ("cmac", "cbc_mac")
            fields = [v["key"], v.get("iv", ""), v.get("aad", ""), v["message"] if mac else v["plaintext"],
                      "" if mac else v["ciphertext"], v.get("tag", "")]
            rule = {"ieee": 0, "gb": 1}.get(v.get("tweak_rule"), 0)
            invalid = int(v.get("result") == "invalid")
            out.append(f"{full} {mode} vector #{i + 1}{source}|{number} {full} "
                       + " ".join(f.lower() for f in fields) + f" {rule} {invalid}")
    return [f"modes {len(out)} {int(not out)}"] + out


def expected(folder, docs):
    """What the printer must print, from the JSON alone (ZUC-256's packed iv23 excepted:
    vectors_c.pack_iv23, tested above)."""
    modes = {"ecb": 0, "cbc": 1, "ctr": 2}
    lines = []
    for name in ("sm4", "ublock"):
        doc = docs[name]
        groups = [("vectors", doc["vectors"])] if "vectors" in doc else [(m, doc[m]) for m in modes if m in doc]
        lines.append(f"{name} {sum(len(g) for _, g in groups)} 1 {folder / (name + '.json')}")
        for group, items in groups:
            for i, v in enumerate(items):
                mode = v.get("mode", "ecb") if group == "vectors" else group
                full = name + v.get("variant", "").replace("/", "_")
                source = f" ({v['source'][:60]})" if "source" in v else ""
                it = v.get("iterations", 1)
                line = (f"{full} {mode} vector #{i + 1}{source}, {it} iteration(s)|{modes[mode]} {full} {it} "
                        f"{v['key']} {v.get('iv', '')} {v['plaintext']} {v['ciphertext']}")
                lines.append(line + "".join(f" {w}" for w in v.get("round_keys_first_last", [])))
        lines += mode_lines(name, doc)
    zuc = []
    for group in ("zuc128_keystream", "zuc256_keystream", "zuc128_mac", "zuc256_mac", "nea6_encrypt", "nia6_mac"):
        for i, v in enumerate(docs["zuc"][group]):
            variant = 6 if group in ("nea6_encrypt", "nia6_mac") else int(group[3:6])  # zuc_variant's values
            head = f"{group} #{i + 1} ({v['source'][:60]})"
            if group.endswith("keystream"):
                rest = " " + "".join(v["keystream"]).lower()
            elif group.endswith("encrypt"):
                rest = f" {v['bits']} {v['plaintext'].lower()} ct {v['ciphertext'].lower()}"
            elif group == "nia6_mac":
                rest = f" {4 * len(v['message'])} {v['message'].lower()} nia6 {v['tag'].lower()}"
            else:
                rest = f" {v['bits']} {v['message'][:2 * ((v['bits'] + 7) // 8)].lower()}" + "".join(
                    f" {k} {v[t].lower()}" for k, t in enumerate(("tag32", "tag64", "tag128")) if t in v)
            ivs = [("", v.get("iv", v.get("iv25")))]
            if "iv23" in v:
                ivs.append((" iv23", v["iv23"]))
            elif variant == 256 and vectors_c.pack_iv23(bytes.fromhex(v["iv25"])):
                ivs.append((" iv23 packed from iv25", vectors_c.pack_iv23(bytes.fromhex(v["iv25"])).hex()))
            zuc += [f"{head}{suffix}|{variant} {padded(v['key'])} {iv}{rest}" for suffix, iv in ivs]
    return lines + [f"zuc {len(zuc)} 1 {folder / 'zuc.json'}"] + zuc


def test_tables_carry_what_the_files_say(tmp_path):
    got = printed(VECTORS, tmp_path)
    assert got == expected(VECTORS.resolve(), official())
    # the counts verify reports: 4 SM4, 8 uBlock, 52 ZUC entries (IV forms apart, 18 of NEA6, 17 of NIA6); SM4's
    # 273 mode vectors (GCM: RFC 8998's and 102 of Wycheproof's; CCM: RFC 8998's and 162
    # of Wycheproof's; 3 XTS, 3 CMAC, 1 CBC-MAC), none for uBlock
    assert [line.split()[:2] for line in got if line.split()[1].isdigit()] == [
        ["sm4", "4"], ["modes", "273"], ["ublock", "8"], ["modes", "0"], ["zuc", "52"]]
    assert sum(line.endswith(" 1") for line in got if line.startswith("sm4 gcm ")) == 27


def test_tables_of_other_vectors(tmp_path):
    """A folder of other vectors: a ZUC-256 vector without iv23 gets the packed form (the
    published one, for zuc256_keystream #2), one with a top bit set gets none, a
    block-cipher file of mode lists becomes one list in the files' order, and a source
    with C's special characters reaches the label unchanged."""
    docs = official()
    no_iv23(docs["zuc"]["zuc256_keystream"][1])
    top = copy.deepcopy(docs["zuc"]["zuc256_mac"][0])
    top["iv25"] = top["iv25"][:34] + "80" + top["iv25"][36:]
    docs["zuc"]["zuc256_mac"].append(top)
    docs["sm4"]["ctr"].append(copy.deepcopy(docs["sm4"]["ctr"][0]))
    docs["sm4"]["cbc"][0]["source"] = 'a "quoted" ??) back\\slash\ttab, é'
    folder = tmp_path / "v"
    folder.mkdir()
    write(folder, docs)
    got = printed(folder, tmp_path)
    assert got == expected(folder.resolve(), docs)
    packed = [line for line in got if line.startswith("zuc256_keystream #2") and "iv23 packed" in line]
    assert len(packed) == 1 and f" {'ff' * 23} " in packed[0]
    assert [line for line in got if line.startswith("zuc256_mac #5")] == [
        line for line in got if line.startswith("zuc256_mac #5") and "iv23" not in line]
    assert got[0].split()[:2] == ["sm4", "5"] and got[4].startswith("sm4 ctr vector #1 ")


# ---- The build ---------------------------------------------------------------------------

def build_verify(harness_build, folder, docs):
    """`folder` holding docs, and a verify linked there from the harness build's objects and
    their tables (harness/c's Makefile, VECTORS_BUILD): make's result."""
    write(folder, docs)
    generated = [f"GENERATED={Path(g).resolve()}" for g in [os.environ.get("KC_GENERATED")] if g]
    return subprocess.run(["make", "-s", "-C", str(REPO / "harness" / "c"), f"BUILD={harness_build}",
                           f"VECTORS_DIR={folder}", f"VECTORS_BUILD={folder}", f"{folder}/verify", *generated],
                          capture_output=True, text=True, timeout=120)


def test_build_stops_on_a_bad_file(harness_build, tmp_path):
    """make with a VECTORS_DIR whose file is wrong fails with the converter's message."""
    docs = official()
    docs["ublock"]["vectors"][0]["key"] = "0"
    proc = build_verify(harness_build, tmp_path, docs)
    assert proc.returncode != 0
    assert (f"vectors_c.py: error: {tmp_path}/ublock.json: vectors vector #1: 'key' is not an even number"
            in proc.stderr), proc.stderr
    assert not (tmp_path / "verify").exists()


def test_verify_refuses_vectors_its_description_does_not_fit(harness_build, tmp_path):
    """Sizes only SM4's description knows: an unknown variant, a key or IV of another length,
    ECB text that is not whole blocks.  verify names every misfit and runs nothing (status 2)."""
    docs = official()
    docs["sm4"]["ecb"][0]["key"] = "00" * 15
    docs["sm4"]["ecb"][1].update(plaintext="00" * 17, ciphertext="00" * 17)
    docs["sm4"]["cbc"][0]["iv"] = "00" * 32
    docs["sm4"]["ctr"][0]["variant"] = "128"
    assert build_verify(harness_build, tmp_path, docs).returncode == 0
    proc = subprocess.run([str(tmp_path / "verify"), "--cipher", "sm4", "--random", "0"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "PASS" not in proc.stdout, proc.stdout
    path = tmp_path / "sm4.json"
    for line in (f"{path}: sm4 ecb vector #1 (GB/T 32907-2016, example 1), 1 iteration(s): the key is 15 bytes, "
                 "sm4's are 16",
                 f"{path}: sm4 ecb vector #2 (GB/T 32907-2016, example 2: encrypt the plaintext 1,000,000 ), "
                 "1000000 iteration(s): 17 bytes are not whole 16-byte blocks",
                 "cbc vector #1 (draft-ribose-cfrg-sm4 (as in OpenSSL's evpciph_sm4.txt)), 1 iteration(s): "
                 "the IV is 32 bytes, sm4's block 16",
                 "sm4128 ctr vector #1 (draft-ribose-cfrg-sm4 (as in OpenSSL's evpciph_sm4.txt)), 1 iteration(s): "
                 "sm4 has no variant sm4128"):
        assert line in proc.stderr, proc.stderr


def test_verify_without_a_ciphers_file(harness_build, tmp_path):
    """A vectors folder without zuc.json builds; verify then refuses ZUC, naming the file."""
    docs = official()
    del docs["zuc"]
    assert build_verify(harness_build, tmp_path, docs).returncode == 0
    proc = subprocess.run([str(tmp_path / "verify"), "--cipher", "zuc"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "PASS" not in proc.stdout, proc.stdout
    assert f"verify: error: no zuc.json among the vector files compiled in ({tmp_path / 'sm4.json'})" in proc.stderr


def test_verify_checks_the_round_keys_of_its_tables(harness_build, tmp_path):
    """SM4's round keys travel in the table to verify's "key schedule" section: a wrong
    last round key fails it, naming the vector and both words."""
    docs = official()
    docs["sm4"]["ecb"][0]["round_keys_first_last"][1] = "9124a013"
    proc = build_verify(harness_build, tmp_path, docs)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = subprocess.run([str(tmp_path / "verify"), "--cipher", "sm4", "--impl", "reference_scalar",
                          "--random", "0"], capture_output=True, text=True, timeout=300).stdout
    assert "FAIL key schedule: 5 checks, 1 failed checks" in out, out
    assert ("sm4 ecb vector #1 (GB/T 32907-2016, example 1), 1 iteration(s): "
            "rk[SM4_ENCRYPT][31] = 9124a012, want 9124a013") in out, out
