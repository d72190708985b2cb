#!/usr/bin/env python3
"""The vector files (tests/vectors/*.json) as C tables for verify: a build step.

    python3 harness/vectors_c.py [--dir FOLDER] -o OUT.c

reads every <cipher>.json in FOLDER (default: this repository's
tests/vectors), checks every vector, and writes OUT.c: one `kc_vectors`
table per file, listed in KC_VECTOR_FILES (harness/c/vectors.h), which
harness/c's Makefile compiles and links into the programs.  A file that is wrong stops
the build with its path, group, vector number and what is wrong.  OUT.c is
rewritten only when its text changes, so that make relinks nothing when the
vectors did not change.

zuc.json has ZUC's own shape; every other file is a block cipher's, whose
sizes only its description (harness/c/cipher_<cipher>.c) knows: verify checks
a vector's variant name, key and IV lengths and whole blocks against it.  The
checks here are the rest: hex strings, plaintext and ciphertext of one
length, an IV in CBC and CTR, `iterations` a positive integer, known mode
names; ZUC: `bits` within the message, at least one of
tag32/tag64/tag128 of its length, keystream words of 8 hex digits, and a
ZUC-256 vector's IV as `iv25`, plus its 23-byte form (`iv23` if given, else
packed here when the top two bits of IV17..IV24 are clear).

A block cipher's file may also list vectors of the modes on a 128-bit block
(MODE_LISTS: gcm, ccm, xts, cmac, cbc_mac), each checked against the lengths
its standard allows (mode_vector) and written as the file's kc_mode_vector
table; nothing here knows which cipher they are for.

Standard library only: it runs under the system python3 as well as the
project's virtual environment.
"""

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

BLOCK_MAX_BYTES = 32  # KC_BLOCK_MAX_BYTES (harness/c/common.h): vb_vector's key and IV arrays
MODES = ("ecb", "cbc", "ctr")  # kc_block_mode's order (harness/c/common.h)
# The modes on a 128-bit block (kc_mode_vector, harness/c/vectors.h), in kc_vector_mode's
# order: each list's members and what they must satisfy (mode_vector below).
MODE_LISTS = ("gcm", "ccm", "xts", "cmac", "cbc_mac")
MODE_BLOCK_BYTES = 16
GCM_TAG_BYTES = range(4, 17)       # NIST SP 800-38D 5.2.1.2 (4..16 as the modes take)
CCM_NONCE_BYTES = range(7, 14)     # NIST SP 800-38C A.1
CCM_TAG_BYTES = range(4, 17, 2)
XTS_RULES = ("ieee", "gb")         # kc_xts_rule's order: IEEE Std 1619, GB/T 17964-2021
ZUC_GROUPS = ("zuc128_keystream", "zuc256_keystream", "zuc128_mac", "zuc256_mac", "nea6_encrypt", "nia6_mac")
NIA6_TAG_BYTES = range(4, 17)
ZUC_KEY_BYTES = {128: 16, 256: 32, "NEA6": 32}
ZUC_IV_BYTES_NEA6 = 16
ZUC_TAGS = (32, 64, 128)          # zuc_vector.tag[]'s order
ZUC_MAX_KEYSTREAM_WORDS = 64      # verify_zuc.c's api_vectors checks up to this many words
LABEL_SOURCE_CHARS = 60           # of a vector's source in its label

HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")


class VectorError(Exception):
    """A vector file verify cannot use; the message says where and why."""


class Where:
    """A vector's place for messages: '<file>: <group> vector #<n>'."""

    def __init__(self, path, group, index):
        self.text = f"{path}: {group} vector #{index + 1}"

    def fail(self, what):
        raise VectorError(f"{self.text}: {what}")


def hex_bytes(o, key, where, length=None, most=None):
    """Member `key`, a hex string, as bytes (of `length`, or at most `most`, if given)."""
    text = o.get(key)
    if not isinstance(text, str):
        where.fail(f"missing hex string '{key}'")
    if not HEX.fullmatch(text):
        where.fail(f"'{key}' is not an even number of hex digits")
    data = bytes.fromhex(text)
    if length is not None and len(data) != length:
        where.fail(f"'{key}' must be {length} bytes ({2 * length} hex digits), got {len(data)} bytes")
    if most is not None and len(data) > most:
        where.fail(f"'{key}' must be at most {most} bytes, got {len(data)} bytes")
    return data


def hex_words(o, key, where, count=None):
    """Member `key`, a list of 8-digit hex words, as integers."""
    words = o.get(key)
    if (not isinstance(words, list) or not words or (count is not None and len(words) != count)
            or not all(isinstance(w, str) and re.fullmatch(r"[0-9a-fA-F]{8}", w) for w in words)):
        size = f"{count}" if count is not None else "a non-empty list of"
        where.fail(f"'{key}' must be {size} 8-digit hex words")
    return [int(w, 16) for w in words]


def label_source(o):
    source = o.get("source")
    return source[:LABEL_SOURCE_CHARS] if isinstance(source, str) else None


def read(path):
    try:
        doc = json.loads(path.read_text())
    except OSError as e:
        raise VectorError(f"{path}: cannot read: {e.strerror}") from None
    except ValueError as e:
        raise VectorError(f"{path}: not JSON: {e}") from None
    if not isinstance(doc, dict):
        raise VectorError(f"{path}: not a JSON object")
    return doc


def lists(doc, path, names):
    """The (group, list) pairs of `names` that doc has; each must be a list."""
    found = [(name, doc[name]) for name in names if name in doc]
    for name, items in found:
        if not isinstance(items, list) or not all(isinstance(o, dict) for o in items):
            raise VectorError(f"{path}: '{name}' is not a list of objects")
    return found


# ---- Block ciphers ----------------------------------------------------------


def block_vector(cipher, o, group, index, where):
    """One vector of a block cipher: its variant's name ('128/256' names
    <cipher>128_256; the cipher's own name if absent), mode (its list's, else
    member 'mode', else ECB), key, IV, texts, iterations and round keys."""
    variant = o.get("variant", "")
    if not isinstance(variant, str):
        where.fail("'variant' must be a string")
    name = f"{cipher}{variant}".replace("/", "_")
    mode = group if group != "vectors" else o.get("mode", "ecb")
    if mode not in MODES:
        where.fail(f"unknown mode '{mode}'")
    iterations = o.get("iterations", 1)
    if type(iterations) is not int or not 1 <= iterations < 2**63:
        where.fail("'iterations' must be a positive integer")
    source = label_source(o)
    label = (f"{name} {mode} vector #{index + 1}{f' ({source})' if source is not None else ''}, "
             f"{iterations} iteration(s)")
    key = hex_bytes(o, "key", where, most=BLOCK_MAX_BYTES)
    pt, ct = hex_bytes(o, "plaintext", where), hex_bytes(o, "ciphertext", where)
    if len(pt) != len(ct):
        where.fail("plaintext and ciphertext lengths differ")
    iv = hex_bytes(o, "iv", where, most=BLOCK_MAX_BYTES) if mode != "ecb" else b""
    round_keys = (hex_words(o, "round_keys_first_last", where, 2)
                  if "round_keys_first_last" in o else None)
    return {"label": label, "mode": mode, "variant": name, "key": key,
            "iv": iv, "pt": pt, "ct": ct, "iterations": iterations, "round_keys": round_keys}


def block_vectors(cipher, path):
    """Every vector of a block cipher's file: the list 'vectors', else one
    list per mode; then the lists of MODE_LISTS.  (block vectors, mode vectors)"""
    doc = read(path)
    groups = lists(doc, path, ("vectors",)) or lists(doc, path, MODES)
    out = [block_vector(cipher, o, group, i, Where(path, group, i))
           for group, items in groups for i, o in enumerate(items)]
    modes = [mode_vector(cipher, o, group, i, Where(path, group, i))
             for group, items in lists(doc, path, MODE_LISTS) for i, o in enumerate(items)]
    if not out and not modes:
        raise VectorError(f"{path} holds no vectors")
    return out, modes


# ---- Modes on a 128-bit block -------------------------------------------------


def in_range(where, what, value, allowed):
    if value not in allowed:
        step = f" in steps of {allowed.step}" if allowed.step != 1 else ""
        where.fail(f"{what} is {value} bytes, not {allowed.start}..{allowed.stop - 1}{step}")


def mode_vector(cipher, o, mode, index, where):
    """One vector of a list in MODE_LISTS.  Members: key (XTS: K1 || K2, two
    halves of one length), 'iv' (GCM: the IV, not empty; CCM: the nonce;
    XTS: the 16-byte tweak; none for the MACs), 'aad' (GCM and CCM, may be
    empty), plaintext and ciphertext (GCM, CCM, XTS; XTS at least one block),
    'tweak_rule' (XTS: ieee or gb), 'message' and 'tag' (the MACs; CBC-MAC's
    message whole blocks, at least one); 'tag' for GCM and CCM too, with
    'result' "invalid" when that tag is wrong (decryption must reject it).  Lengths
    are those the standards allow; the variant and key length are the
    cipher's, checked by verify."""
    variant = o.get("variant", "")
    if not isinstance(variant, str):
        where.fail("'variant' must be a string")
    name = f"{cipher}{variant}".replace("/", "_")
    source = label_source(o)
    v = {"label": f"{name} {mode} vector #{index + 1}{f' ({source})' if source is not None else ''}",
         "mode": mode, "variant": name, "key": hex_bytes(o, "key", where), "iv": b"", "aad": b"",
         "in": b"", "out": b"", "tag": b"", "rule": None, "invalid": False}
    if mode in ("cmac", "cbc_mac"):
        v["in"], v["tag"] = hex_bytes(o, "message", where), hex_bytes(o, "tag", where)
        in_range(where, "the tag", len(v["tag"]), range(1, MODE_BLOCK_BYTES + 1))
        if mode == "cbc_mac" and (not v["in"] or len(v["in"]) % MODE_BLOCK_BYTES):
            where.fail(f"CBC-MAC's message must be whole {MODE_BLOCK_BYTES}-byte blocks, at least one; "
                       f"got {len(v['in'])} bytes")
        return v
    v["iv"], v["in"], v["out"] = (hex_bytes(o, k, where) for k in ("iv", "plaintext", "ciphertext"))
    if len(v["in"]) != len(v["out"]):
        where.fail("plaintext and ciphertext lengths differ")
    if mode == "xts":
        if len(v["iv"]) != MODE_BLOCK_BYTES:
            where.fail(f"the XTS tweak ('iv') must be {MODE_BLOCK_BYTES} bytes, got {len(v['iv'])}")
        if len(v["in"]) < MODE_BLOCK_BYTES:
            where.fail(f"an XTS data unit is at least {MODE_BLOCK_BYTES} bytes, got {len(v['in'])}")
        if not v["key"] or len(v["key"]) % 2:
            where.fail("an XTS key is two keys of one length (K1 || K2)")
        if o.get("tweak_rule") not in XTS_RULES:
            where.fail(f"'tweak_rule' must be one of {', '.join(XTS_RULES)}")
        v["rule"] = o["tweak_rule"]
        return v
    v["aad"], v["tag"] = hex_bytes(o, "aad", where), hex_bytes(o, "tag", where)
    result = o.get("result", "valid")
    if result not in ("valid", "invalid"):
        where.fail("'result' must be valid or invalid (a wrong tag, decryption must reject it)")
    v["invalid"] = result == "invalid"
    if mode == "gcm":
        if not v["iv"]:
            where.fail("GCM's IV must not be empty")
        in_range(where, "the GCM tag", len(v["tag"]), GCM_TAG_BYTES)
    else:
        in_range(where, "the CCM nonce ('iv')", len(v["iv"]), CCM_NONCE_BYTES)
        in_range(where, "the CCM tag", len(v["tag"]), CCM_TAG_BYTES)
    return v


# ---- ZUC --------------------------------------------------------------------


def pack_iv23(iv25):
    """A 25-byte ZUC-256 IV as 23 bytes: IV0..IV16, then the 6-bit fields
    IV17..IV24 packed most significant first; None if a field's top two bits
    are not clear (that IV has no 23-byte form)."""
    if any(b & 0xC0 for b in iv25[17:]):
        return None
    acc = 0
    for b in iv25[17:]:
        acc = acc << 6 | b
    return iv25[:17] + acc.to_bytes(6, "big")


def zuc_vector(o, group, index, where):
    """One vector in each of its IV forms: ZUC-128's 16-byte IV; ZUC-256's
    25-byte one and its 23-byte form, given or packed; ZUC-NEA6's 16 bytes."""
    variant = 128 if group.startswith("zuc128") else 256 if group.startswith("zuc256") else "NEA6"  # NIA6 too
    source = label_source(o)
    label = f"{group} #{index + 1} ({source if source is not None else 'no source'})"
    v = {"label": label, "variant": variant,
         "key": hex_bytes(o, "key", where, ZUC_KEY_BYTES[variant]),
         "iv": hex_bytes(o, "iv25", where, 25) if variant == 256 else hex_bytes(o, "iv", where, 16),
         "keystream": None, "msg": None, "ct": None, "bits": 0, "tags": {}, "nia6_tag": None}
    if group == "nia6_mac":
        v["msg"] = hex_bytes(o, "message", where)
        v["bits"] = 8 * len(v["msg"])
        v["nia6_tag"] = hex_bytes(o, "tag", where)
        in_range(where, "the NIA6 tag", len(v["nia6_tag"]), NIA6_TAG_BYTES)
    elif group.endswith("_encrypt"):
        v["msg"] = hex_bytes(o, "plaintext", where)
        v["ct"] = hex_bytes(o, "ciphertext", where, len(v["msg"]))
        v["bits"] = message_bits(o, v["msg"], where)
        if v["bits"] % 8 and v["ct"][-1] & (0xFF >> v["bits"] % 8):
            where.fail("the ciphertext's unused low bits of its last byte must be zero")
    elif group.endswith("_mac"):
        v["msg"] = hex_bytes(o, "message", where)
        v["bits"] = message_bits(o, v["msg"], where, whole=False)
        v["tags"] = {t: hex_bytes(o, f"tag{t}", where, t // 8) for t in ZUC_TAGS if f"tag{t}" in o}
        if not v["tags"]:
            where.fail("no tag32/tag64/tag128")
        if variant == 128 and set(v["tags"]) != {32}:
            where.fail("ZUC-128 (128-EIA3) has only tag32")
    else:
        words = hex_words(o, "keystream", where)
        if len(words) > ZUC_MAX_KEYSTREAM_WORDS:
            where.fail(f"more than {ZUC_MAX_KEYSTREAM_WORDS} keystream words")
        v["keystream"] = b"".join(w.to_bytes(4, "big") for w in words)
    if variant != 256:
        return [v]
    given = "iv23" in o
    iv23 = hex_bytes(o, "iv23", where, 23) if given else pack_iv23(v["iv"])
    if iv23 is None:
        return [v]
    return [v, dict(v, iv=iv23, label=label + (" iv23" if given else " iv23 packed from iv25"))]


def message_bits(o, msg, where, whole=True):
    """The vector's 'bits': at most 8 x the message's bytes, and (whole) more than 8 x
    one byte fewer, so that the bytes are exactly the bits' bytes."""
    bits = o.get("bits")
    if type(bits) is not int or not 0 <= bits <= 8 * len(msg) or (whole and (bits + 7) // 8 != len(msg)):
        where.fail("'bits' must be an integer no larger than 8 x the message bytes"
                   + (", and the message no longer than its bits' bytes" if whole else ""))
    return bits


def zuc_vectors(path):
    doc = read(path)
    found = dict(lists(doc, path, ZUC_GROUPS))
    out = []
    for group in ZUC_GROUPS:
        if not found.get(group):
            raise VectorError(f"{path}: '{group}' is missing or not a non-empty list")
        for i, o in enumerate(found[group]):
            out += zuc_vector(o, group, i, Where(path, group, i))
    return out


# ---- C ----------------------------------------------------------------------


def c_string(text):
    """A C string literal of text (UTF-8): quotes, backslashes and '?' (trigraphs, which
    -std=c11 reads) escaped, control characters in octal."""
    return '"' + "".join("\\" + c if c in '\\"?' else f"\\{ord(c):03o}" if ord(c) < 32 or c == "\x7f"
                         else c for c in text) + '"'


def c_bytes(data):
    return "{" + ", ".join(f"0x{b:02x}" for b in data) + "}" if data else "{0}"


class Writer:
    """Collects the byte arrays the tables point at, and the tables."""

    def __init__(self):
        self.arrays, self.names, self.tables = [], {}, []

    def array(self, name, data):
        """The name of a static array of data, written once per contents (a
        ZUC-256 vector's IV forms share theirs); one byte when empty: C has
        no empty arrays, and memcpy's pointers must not be NULL."""
        if data not in self.names:
            self.names[data] = name
            self.arrays.append(f"static const uint8_t {name}[] = {c_bytes(data)};")
        return self.names[data]

    def rows(self, kind, name, entries):
        """The static array `name` of `entries`, or NULL when there are none."""
        if not entries:
            return "NULL"
        rows = "\n".join(f"    {{{', '.join(e)}}}," for e in entries)
        self.arrays.append(f"static const {kind} {name}[] = {{\n{rows}\n}};")
        return name

    def table(self, cipher, path, kind, entries, modes=()):
        vectors = self.rows(kind, f"{cipher}_vectors", entries)
        self.tables.append(f"    {{{c_string(cipher)}, {c_string(str(path))}, "
                           f"{vectors if kind == 'vb_vector' else 'NULL'}, "
                           f"{vectors if kind == 'zuc_vector' else 'NULL'}, "
                           f"{len(entries)}, {self.rows('kc_mode_vector', f'{cipher}_modes', modes)}, "
                           f"{len(modes)}}},")

    def text(self, folder):
        return "\n".join([f"/* Generated by harness/vectors_c.py from {folder}: do not edit. */",
                          '#include "vectors.h"', *self.arrays,
                          "const kc_vectors KC_VECTOR_FILES[] = {", *self.tables, "};",
                          f"const size_t KC_N_VECTOR_FILES = {len(self.tables)};", ""])


def block_entry(w, name, v):
    fields = [f".label = {c_string(v['label'])}", f".mode = KC_MODE_{v['mode'].upper()}",
              f".key = {c_bytes(v['key'])}", f".key_len = {len(v['key'])}", f".iv = {c_bytes(v['iv'])}",
              f".iv_len = {len(v['iv'])}", f".pt = {w.array(name + '_pt', v['pt'])}",
              f".ct = {w.array(name + '_ct', v['ct'])}", f".len = {len(v['pt'])}",
              f".iterations = {v['iterations']}", f".variant = {c_string(v['variant'])}"]
    if v["round_keys"]:
        fields += [".has_round_keys = 1",
                   ".round_keys = {" + ", ".join(f"0x{k:08x}u" for k in v["round_keys"]) + "}"]
    return fields


def mode_entry(w, name, v):
    fields = [f".label = {c_string(v['label'])}", f".mode = KC_VMODE_{v['mode'].upper()}",
              f".variant = {c_string(v['variant'])}"]
    for member, size in (("key", "key_len"), ("iv", "iv_len"), ("aad", "aad_len"), ("in", "len"),
                         ("tag", "tag_len")):
        fields += [f".{member} = {w.array(f'{name}_{member}', v[member])}", f".{size} = {len(v[member])}"]
    fields.append(f".out = {w.array(name + '_out', v['out'])}")
    if v["rule"] is not None:
        fields.append(f".tweak_rule = KC_XTS_{v['rule'].upper()}")
    if v["invalid"]:
        fields.append(".invalid = 1")
    return fields


def zuc_entry(w, name, v):
    fields = [f".label = {c_string(v['label'])}", f".variant = ZUC_{v['variant']}",
              f".key = {c_bytes(v['key'])}", f".iv = {c_bytes(v['iv'])}", f".iv_len = {len(v['iv'])}"]
    if v["keystream"] is not None:
        fields += [f".keystream = {w.array(name + '_ks', v['keystream'])}",
                   f".ks_bytes = {len(v['keystream'])}"]
    elif v["ct"] is not None:
        fields += [f".msg = {w.array(name + '_msg', v['msg'])}", f".ct = {w.array(name + '_ct', v['ct'])}",
                   f".bits = {v['bits']}"]
    elif v["nia6_tag"] is not None:
        fields += [f".msg = {w.array(name + '_msg', v['msg'])}", f".bits = {v['bits']}",
                   f".nia6_tag = {c_bytes(v['nia6_tag'])}", f".nia6_tag_bytes = {len(v['nia6_tag'])}"]
    else:
        fields += [f".msg = {w.array(name + '_msg', v['msg'])}", f".bits = {v['bits']}",
                   ".has_tag = {" + ", ".join(str(int(t in v["tags"])) for t in ZUC_TAGS) + "}",
                   ".tag = {" + ", ".join(c_bytes(v["tags"].get(t, b"")) for t in ZUC_TAGS) + "}"]
    return fields


def load(folder):
    """Every file's checked vectors: {cipher: (path, vectors)}, the cipher
    named by the file (<cipher>.json, a C identifier)."""
    paths = sorted(Path(folder).resolve().glob("*.json"))
    if not paths:
        raise VectorError(f"{Path(folder).resolve()}: no vector files (*.json)")
    for p in paths:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", p.stem):
            raise VectorError(f"{p}: a vector file's name must be <cipher>.json, the cipher in "
                              "lower-case letters, digits and _")
    return {p.stem: (p, zuc_vectors(p) if p.stem == "zuc" else block_vectors(p.stem, p))
            for p in paths}


def c_source(folder):
    """The C file of every file's table (raises VectorError)."""
    w = Writer()
    for cipher, (path, vectors) in load(folder).items():
        if cipher == "zuc":
            w.table(cipher, path, "zuc_vector", [zuc_entry(w, f"{cipher}_{i}", v) for i, v in enumerate(vectors)])
            continue
        blocks, modes = vectors
        w.table(cipher, path, "vb_vector", [block_entry(w, f"{cipher}_{i}", v) for i, v in enumerate(blocks)],
                [mode_entry(w, f"{cipher}_m{i}", v) for i, v in enumerate(modes)])
    return w.text(Path(folder).resolve())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=REPO / "tests" / "vectors", help="the vector files' folder")
    ap.add_argument("-o", "--output", required=True, type=Path, help="the C file to write")
    args = ap.parse_args(argv)
    try:
        text = c_source(args.dir)
    except VectorError as e:
        print(f"vectors_c.py: error: {e}", file=sys.stderr)
        return 1
    if not args.output.exists() or args.output.read_text() != text:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
