"""`openssl speed` with and without the kcrypt provider, in one run: the
default provider's SM4 against ours through the same binary, libcrypto and
EVP calls, and the ratio per size.  Writes a markdown table.

  python3 harness/provider/speed.py PROVIDER_DIR [--seconds N] [--md FILE]

Runs each cipher's pair back to back (`openssl speed -mr -evp NAME`, and
`-aead` for GCM and CCM).  OpenSSL 3.0's default provider has no SM4-GCM or
SM4-CCM: those rows have our figures alone."""

import argparse
import platform
import subprocess
import sys
from datetime import date

CIPHERS = (("sm4-ctr", False), ("sm4-cbc", False), ("sm4-ecb", False), ("sm4-gcm", True), ("sm4-ccm", True))


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def speed(openssl, cipher, aead, seconds, provider_dir=None):
    """{block size: bytes per second}, or None where the cipher is not there."""
    cmd = [openssl, "speed", "-mr", "-seconds", str(seconds)]
    if provider_dir is not None:
        cmd += ["-provider-path", provider_dir, "-provider", "kcrypt", "-provider", "default",
                "-propquery", "provider=kcrypt"]
    cmd += (["-aead"] if aead else []) + ["-evp", cipher]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    sizes = rates = None
    for line in proc.stdout.splitlines():
        if line.startswith("+H:"):
            sizes = [int(x) for x in line.split(":")[1:]]
        elif line.startswith("+F:"):
            rates = [float(x) for x in line.split(":")[3:]]
    if proc.returncode != 0 or sizes is None or rates is None:
        return None
    return dict(zip(sizes, rates))


def table(openssl, provider_dir, seconds):
    lines = [f"`openssl speed -evp` (OpenSSL {openssl_version(openssl)}), {cpu_name()}, "
             f"{date.today().isoformat()}, {seconds} s a size; MB/s (10^6 bytes), default provider / kcrypt",
             "", "| cipher | bytes | default | kcrypt | kcrypt / default |", "|---|---:|---:|---:|---:|"]
    for cipher, aead in CIPHERS:
        print(f"speed: {cipher} ...", file=sys.stderr, flush=True)
        theirs = speed(openssl, cipher, aead, seconds)
        ours = speed(openssl, cipher, aead, seconds, provider_dir)
        if ours is None:
            raise SystemExit(f"speed: {cipher} did not run through the kcrypt provider")
        for size, rate in ours.items():
            base = theirs.get(size) if theirs else None
            ratio = f"{rate / base:.1f}x" if base else "n/a"
            lines.append(f"| {cipher.upper()} | {size} | {base / 1e6:,.1f} | {rate / 1e6:,.1f} | {ratio} |"
                         if base else f"| {cipher.upper()} | {size} | (none) | {rate / 1e6:,.1f} | {ratio} |")
    return "\n".join(lines) + "\n"


def openssl_version(openssl):
    return subprocess.run([openssl, "version"], capture_output=True, text=True).stdout.split()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("provider_dir")
    ap.add_argument("--seconds", type=int, default=1)
    ap.add_argument("--md", help="write the table here too")
    ap.add_argument("--openssl", default="openssl")
    args = ap.parse_args()
    text = table(args.openssl, args.provider_dir, args.seconds)
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
