"""The kcrypt OpenSSL 3 provider (generated/provider/) through Debian's own
`openssl` binary and libcrypto: loaded both ways (the command line and an
openssl.cnf section), its algorithms listed, `openssl enc` byte-identical to
the default provider for every SM4 mode both have, uBlock's published
vectors, and harness/provider/evp_check.c's EVP API checks (pieces, in
place, context copies, new IVs, AEAD tags and tampering, OpenSSL's own
evpciph_sm4.txt)."""

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "tests" / "vectors"
OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"


@pytest.fixture(scope="module")
def provider():
    """The provider built by generated/'s own `make provider` where the
    top-level `make provider` builds it (BUILD/lib, BUILD being KC_BUILD_DIR or
    build/), so that the README's `make provider`, which the doc-command test
    runs, finds it made: the folder that holds kcrypt.so."""
    build = Path(os.environ.get("KC_BUILD_DIR", ROOT / "build")).resolve() / "lib"
    proc = subprocess.run(["make", "-s", "-C", str(ROOT / "generated"), f"BUILD={build}", f"-j{os.cpu_count() or 2}",
                           "provider"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return build / "provider"


def openssl(*args, provider_dir=None, data=b"", env=None, check=True):
    cmd = [OPENSSL, *args]
    if provider_dir is not None:
        cmd += ["-provider-path", str(provider_dir), "-provider", "kcrypt", "-provider", "default"]
    proc = subprocess.run(cmd, input=data, capture_output=True, env=env)
    if check:
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr.decode(errors='replace')}"
    return proc


def test_only_the_entry_point_is_exported(provider):
    out = subprocess.run(["nm", "-D", "--defined-only", str(provider / "kcrypt.so")], capture_output=True,
                         text=True, check=True).stdout
    assert [line.split()[-1] for line in out.splitlines()] == ["OSSL_provider_init"]


def test_listed_algorithms(provider):
    out = openssl("list", "-cipher-algorithms", provider_dir=provider).stdout.decode()
    ours = [line for line in out.splitlines() if line.endswith("@ kcrypt")]
    for name in ("SM4-ECB", "SM4-CBC", "SM4-OFB", "SM4-CFB", "SM4-CTR", "SM4-GCM", "SM4-CCM", "SM4-XTS",
                 "ZUC-128", "ZUC-256", "UBLOCK-128-128-CBC", "UBLOCK-128-256-CTR", "UBLOCK-256-256-ECB"):
        assert any(name in line for line in ours), f"{name} not listed from kcrypt:\n{out}"
    providers = openssl("list", "-providers", "-verbose", provider_dir=provider).stdout.decode()
    assert "kcrypt" in providers and "kernels: sm4 " in providers


MODES = ("ecb", "cbc", "ctr", "ofb", "cfb")


@pytest.mark.parametrize("mode", MODES)
def test_enc_matches_the_default_provider(provider, mode):
    """`openssl enc` with the provider gives the default provider's bytes:
    random keys, IVs and lengths, both directions, padding on and off."""
    rng = random.Random(f"enc-{mode}")
    for case in range(12):
        key, iv = rng.randbytes(16).hex(), rng.randbytes(16).hex()
        nopad = mode in ("ecb", "cbc") and case % 2 == 1
        length = rng.randrange(0, 3000)
        if nopad:
            length -= length % 16
        msg = rng.randbytes(length)
        args = ["enc", f"-sm4-{mode}", "-K", key] + (["-iv", iv] if mode != "ecb" else []) + (
            ["-nopad"] if nopad else [])
        theirs = openssl(*args, data=msg).stdout
        ours = openssl(*args, "-propquery", "provider=kcrypt", provider_dir=provider, data=msg).stdout
        assert ours == theirs, f"sm4-{mode}, {length} bytes, nopad {nopad}"
        back = openssl(*args, "-d", "-propquery", "provider=kcrypt", provider_dir=provider, data=theirs).stdout
        assert back == msg


def test_enc_refuses_a_bad_padding(provider):
    key = "00" * 16
    proc = openssl("enc", "-d", "-sm4-ecb", "-K", key, "-propquery", "provider=kcrypt", provider_dir=provider,
                   data=bytes(32), check=False)
    assert proc.returncode != 0 and b"bad decrypt" in proc.stderr


def test_ublock_published_vectors_through_enc(provider):
    vectors = [v for v in json.loads((VECTORS / "ublock.json").read_text())["vectors"]
               if "iterations" not in v and "iv" not in v]
    assert vectors
    for v in vectors:
        name = "UBLOCK-" + v["variant"].replace("/", "-") + "-ECB"
        out = openssl("enc", f"-{name}", "-nopad", "-K", v["key"], "-propquery", "provider=kcrypt",
                      provider_dir=provider, data=bytes.fromhex(v["plaintext"])).stdout
        assert out.hex() == v["ciphertext"], name


def test_loaded_through_a_config_file(provider, tmp_path):
    conf = tmp_path / "openssl.cnf"
    conf.write_text(f"""openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
[provider_sect]
default = default_sect
kcrypt = kcrypt_sect
[default_sect]
activate = 1
[kcrypt_sect]
module = {provider / 'kcrypt.so'}
activate = 1
""")
    env = dict(os.environ, OPENSSL_CONF=str(conf))
    assert "kcrypt" in openssl("list", "-providers", env=env).stdout.decode()
    msg = bytes(range(256)) * 3
    args = ["enc", "-sm4-ctr", "-K", "11" * 16, "-iv", "22" * 16]
    ours = openssl(*args, "-propquery", "provider=kcrypt", env=env, data=msg).stdout
    assert ours == openssl(*args, data=msg).stdout


@pytest.fixture(scope="module")
def evp_check(tmp_path_factory):
    exe = tmp_path_factory.mktemp("evp") / "evp_check"
    subprocess.run(["cc", "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", str(exe),
                    str(ROOT / "harness" / "provider" / "evp_check.c"), "-lcrypto"], check=True)
    return exe


def test_evp_api(provider, evp_check):
    proc = subprocess.run([str(evp_check), str(provider), "--vectors",
                           str(VECTORS / "openssl" / "evpciph_sm4.txt"), "--seed", "7"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    passed = [line.split(":")[0][5:] for line in proc.stdout.splitlines() if line.startswith("PASS ")]
    checks = [p.split(" ")[0] for p in passed]
    assert checks == ["differential", "in-place", "copy", "reinit-iv", "gcm", "ccm", "xts", "zuc", "ublock",
                      "errors", "vectors"]


def test_cmake_builds_the_provider(tmp_path):
    """generated/CMakeLists.txt's KCRYPT_PROVIDER option: the same provider
    from a downstream CMake build, loaded and run."""
    out = tmp_path / "cmake"
    subprocess.run(["cmake", "-S", str(ROOT / "generated"), "-B", str(out), "-DKCRYPT_PROVIDER=ON",
                    "-DCMAKE_BUILD_TYPE=Release"], check=True, capture_output=True)
    proc = subprocess.run(["cmake", "--build", str(out), "--target", "kcrypt_provider", "-j", str(os.cpu_count() or 2)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    msg = bytes(range(200)) * 7
    args = ["enc", "-sm4-cbc", "-K", "33" * 16, "-iv", "44" * 16]
    ours = openssl(*args, "-propquery", "provider=kcrypt", provider_dir=out, data=msg).stdout
    assert ours == openssl(*args, data=msg).stdout
