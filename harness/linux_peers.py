"""The Linux kernel's own AArch64 SM4, modelled by llvm-mca as our kernels are.

The peers are the 8-blocks-per-pass loops of Linux 6.1's

  * arch/arm64/crypto/sm4-neon-core.S: the S-box by TBL/TBX over the
    256-byte table held in v16-v31, four rounds per pass of an inner round
    loop (eight passes); sm4_neon_crypt_blk8 (ECB, the neon glue's
    encryption and decryption) and sm4_neon_ctr_enc_blk8 (CTR);
  * arch/arm64/crypto/sm4-ce-core.S: SM4E, four rounds of one block per
    instruction, all 32 rounds of 8 blocks straight-line in the loop;
    sm4_ce_crypt (ECB) and sm4_ce_ctr_enc (CTR).

How (harness/mca_model.py's docstring has the model itself, harness/mca_core.py
the machinery both use):

  1. The two files are unpacked at run time from Debian's linux-source-6.1
     (/usr/src/linux-source-6.1.tar.xz) into a build folder; they are never
     copied into the project.
  2. Each is assembled by `aarch64-linux-gnu-gcc -c` with the stub headers of
     harness/linux_asm_stubs/ (<linux/linkage.h>: SYM_FUNC_START/END;
     <asm/assembler.h>: adr_l), which stand in for the kernel's.
  3. The object is disassembled by llvm-objdump-19: sm4-ce-core.S writes
     SM4E as `.inst` words (a macro of its own), which llvm-mca cannot read;
     the disassembly names them.  Branch targets become local labels
     (.Lx<address>), each function ends in `.size`, so the text reads like a
     compiler's.
  4. In the function, the loop of most instructions (label to backward
     branch) is the 8-block pass.  A loop inside it (sm4-neon-core's round
     loop, `mov x6, 8` ... `subs x6, x6, #1` ... `b.ne`) is the modelled
     loop body, repeated as many times as its counter's `mov` says; the
     rest of the pass once.  No inner loop (sm4-ce-core): the pass is the
     body, once.  A pass must hold the 32 rounds of each of its 8 blocks
     (SM4E: 4 rounds of one block each; TBL/TBX: a quarter of the table for
     four blocks' bytes, i.e. one block-round each), else the cut is refused.
  5. llvm-mca-19 models body and rest on each CPU, as for our kernels
     (Total Cycles / Iterations, -iterations=100): cycles per pass = body x
     inner passes + rest; c/B = cycles per pass / 128 bytes; the
     operation-count bound beside it.  SM4E does not exist on neoverse-n1:
     llvm-mca's assembler refuses it there, and the record says so.

Records have the shape of mca_model's (cipher "sm4", impl "linux", name
"linux <function>", mode "ecb-enc" or "ctr", modelled: true, cpu_model, cpb,
...), so harness/report.py shows them beside ours.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mca_core  # noqa: E402
import target_manifest  # noqa: E402

LINUX_TARBALL = "/usr/src/linux-source-6.1.tar.xz"
CRYPTO_DIR = "arch/arm64/crypto"
HARNESS = os.path.dirname(os.path.abspath(__file__))
STUBS = os.path.join(HARNESS, "linux_asm_stubs")
SM4_ROUNDS = 32
BLOCK_BYTES = 16


class Peer:
    """One modelled loop: the file, its function, the mode it serves, the
    CPU features its instructions need (gen/backends/cpu_features.py's
    names), blocks per pass, and the instructions that do the rounds (with
    how many rounds of one block each does)."""

    def __init__(self, file, function, mode, needs, round_ops, block_rounds_per_op):
        self.file, self.function, self.mode, self.needs = file, function, mode, frozenset(needs)
        self.round_ops, self.block_rounds_per_op = round_ops, block_rounds_per_op
        self.blocks = 8

    @property
    def name(self):
        return f"linux {self.function}"

    def target(self, manifest):
        """Our AArch64 target that has the peer's instructions and the fewest
        others (generated/targets.json: of the C targets whose CPU features
        include the peer's, the one with fewest features; neon_sm4 also
        needs AES and PMULL, for GCM and XTS), for its records."""
        able = [t for t in manifest.targets.values() if t["arch"] == mca_core.AARCH64.name
                and t["form"] == "c" and self.needs <= frozenset(t["cpu_features"])]
        fewest = min((len(t["cpu_features"]) for t in able), default=None)
        same = [t["name"] for t in able if len(t["cpu_features"]) == fewest]
        if len(same) != 1:
            raise ValueError(f"{self.function}: {len(same)} targets with the fewest features "
                             f"beyond {', '.join(sorted(self.needs))}")
        return same[0]


TBL_OPS = ("tbl", "tbx")
NEON = ("asimd",)            # TBL/TBX: Advanced SIMD alone
SM4E = ("asimd", "arm_sm4")  # FEAT_SM4
PEERS = (
    Peer("sm4-neon-core.S", "sm4_neon_crypt_blk8", "ecb-enc", NEON, TBL_OPS, 1),
    Peer("sm4-neon-core.S", "sm4_neon_ctr_enc_blk8", "ctr", NEON, TBL_OPS, 1),
    Peer("sm4-ce-core.S", "sm4_ce_crypt", "ecb-enc", SM4E, ("sm4e",), 4),
    Peer("sm4-ce-core.S", "sm4_ce_ctr_enc", "ctr", SM4E, ("sm4e",), 4),
)


# --------------------------------------------------------------------------
# Unpacking, assembling, disassembling
# --------------------------------------------------------------------------

def source_top(tarball):
    """'linux-source-6.1' for /usr/src/linux-source-6.1.tar.xz."""
    return re.sub(r"\.tar(\.\w+)?$", "", os.path.basename(tarball))


def extract(tarball, work, files=("sm4-neon-core.S", "sm4-ce-core.S")):
    """The paths of `files` (in arch/arm64/crypto) unpacked from tarball
    under work; unpacked once, kept for later runs.  --occurrence stops tar
    at the last of them instead of decompressing the whole tree."""
    top = source_top(tarball)
    members = [f"{top}/{CRYPTO_DIR}/{f}" for f in files]
    paths = [os.path.join(work, m) for m in members]
    if not all(os.path.exists(p) for p in paths):
        if not os.path.exists(tarball):
            raise OSError(f"{tarball} not found (Debian package {top}; `make deps` installs it)")
        os.makedirs(work, exist_ok=True)
        res = subprocess.run(["tar", "-xJf", tarball, "-C", work, "--occurrence=1", *members],
                             capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError(f"tar: {res.stderr.strip()}")
    return dict(zip(files, paths))


def assemble(src, obj, cc="aarch64-linux-gnu-gcc"):
    """src (.S) -> obj with the stub headers instead of the kernel's."""
    cmd = [cc, "-c", "-nostdinc", "-I", STUBS, "-D__ASSEMBLY__", src, "-o", obj]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stderr}")
    return obj


def find_objdump():
    """llvm-objdump of the llvm-mca in use (it names SM4E)."""
    mca = mca_core.find_llvm_mca() or ""
    suffix = re.sub(r"^.*llvm-mca", "", os.path.basename(mca))
    for exe in (f"llvm-objdump{suffix}", "llvm-objdump-19", "llvm-objdump"):
        if shutil.which(exe):
            return exe
    raise RuntimeError("llvm-objdump not found (Debian package llvm-19)")


def disassemble(obj, objdump=None):
    res = subprocess.run([objdump or find_objdump(), "-d", "--no-show-raw-insn", obj],
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"llvm-objdump {obj}: {res.stderr.strip()}")
    return res.stdout


FUNC_HEADER = re.compile(r"^[0-9a-f]+ <([\w.$]+)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)(?:\s+(.*?))?\s*$")
BRANCH = re.compile(r"^(?:b|b\.\w+|cbn?z|tbn?z)$")
ADDRESS = re.compile(r"0x([0-9a-f]+) <[^>]*>$")


def objdump_to_asm(text):
    """llvm-objdump's listing as compiler-like assembly: `name:` per
    function, an instruction per line, a `.Lx<address>:` label before every
    branch target, branches to those labels, `.size` after each function
    (what mca_core.functions and loops read)."""
    funcs, cur = [], None
    for line in text.splitlines():
        m = FUNC_HEADER.match(line.strip())
        if m:
            cur = (m.group(1), [])
            funcs.append(cur)
            continue
        m = INSN.match(line)
        if m and cur is not None:
            operands = (m.group(3) or "").split("//")[0].rstrip()  # "// =8": a comment
            cur[1].append((int(m.group(1), 16), m.group(2), operands))
    targets = set()
    for _, insns in funcs:
        for _, mnemonic, operands in insns:
            t = ADDRESS.search(operands)
            if BRANCH.match(mnemonic) and t:
                targets.add(int(t.group(1), 16))
    out = []
    for name, insns in funcs:
        out.append(f"{name}:")
        for addr, mnemonic, operands in insns:
            if addr in targets:
                out.append(f".Lx{addr:x}:")
            if BRANCH.match(mnemonic):
                operands = ADDRESS.sub(lambda t: f".Lx{int(t.group(1), 16):x}", operands)
            out.append(f"\t{mnemonic}\t{operands}".rstrip())
        out.append(f"\t.size\t{name}, .-{name}")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# Cutting a pass
# --------------------------------------------------------------------------

def trip_count(lines, loop):
    """Iterations of an inner loop counted down from an immediate: the
    register of its `subs r, r, #1`, whose `mov r, #K` comes before the
    loop's label; None if the loop has no such counter."""
    for line in lines[loop[0]:loop[1] + 1]:
        m = re.match(r"^\s*subs\s+([wx]\d+),\s*\1,\s*#(?:0x)?1\s*$", line)
        if m:
            reg = m.group(1)
            for prev in reversed(lines[:loop[0]]):
                k = re.match(rf"^\s*mov\s+{reg},\s*#(0x[0-9a-f]+|\d+)\s*$", prev)
                if k:
                    return int(k.group(1), 0)
            return None
    return None


def count_ops(lines, mnemonics):
    return sum(1 for line in lines if line.split() and line.split()[0] in mnemonics)


def cut_peer(asm, peer):
    """The peer's 8-block pass as mca_core.model_cycles wants it: (cut,
    params).  The pass is the function's biggest loop; an inner loop in it
    is the body (repeated trip_count times), the pass's other instructions
    the rest."""
    funcs = mca_core.functions(asm)
    if peer.function not in funcs:
        raise ValueError(f"no function {peer.function} in {peer.file}")
    lines = funcs[peer.function]
    all_loops = mca_core.loops(lines, mca_core.AARCH64)
    outer = mca_core.biggest_loop(all_loops)
    if outer is None:
        raise ValueError(f"{peer.function}: no loop")
    inner = mca_core.biggest_loop([l for l in all_loops if l != outer
                                    and outer[0] <= l[0] and l[1] <= outer[1]])
    clean = lambda part: mca_core.clean(part, mca_core.AARCH64)  # noqa: E731
    if inner:
        trips = trip_count(lines, inner)
        if not trips:
            raise ValueError(f"{peer.function}: no counted inner loop")
        body = clean(lines[inner[0]:inner[1] + 1])
        rest = clean(lines[outer[0]:inner[0]] + lines[inner[1] + 1:outer[1] + 1])
    else:
        trips = 1
        body, rest = clean(lines[outer[0]:outer[1] + 1]), []
    ops = count_ops(body, peer.round_ops) * trips + count_ops(rest, peer.round_ops)
    rounds = ops * peer.block_rounds_per_op / peer.blocks
    if rounds != SM4_ROUNDS:
        raise ValueError(f"{peer.function}: the loop cut holds {rounds:g} rounds per block by its "
                         f"{'/'.join(peer.round_ops)} count, not {SM4_ROUNDS}")
    cut = {"function": peer.function, "body": body, "rest": rest, "loop": True,
           "marked": False, "regions": 0}
    params = {"rounds": trips, "rounds_per_iteration": 1,
              "batch_bytes": peer.blocks * BLOCK_BYTES, "batch_blocks": peer.blocks}
    return cut, params


# --------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------

def debian_version(tarball):
    """The Debian version of the package that holds tarball (e.g.
    6.1.158-1), or None."""
    res = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", source_top(tarball)],
                         capture_output=True, text=True)
    return res.stdout.strip() if res.returncode == 0 and res.stdout.strip() else None


def peer_jobs(tarball, work, cc="aarch64-linux-gnu-gcc"):
    """[(peer, cut, params)] for every peer: unpacked, assembled and cut."""
    sources = extract(tarball, work, tuple(dict.fromkeys(p.file for p in PEERS)))
    asm = {}
    for file, src in sources.items():
        obj = assemble(src, os.path.join(work, file.replace(".S", ".o")), cc)
        asm[file] = objdump_to_asm(disassemble(obj))
    return [(peer, *cut_peer(asm[peer.file], peer)) for peer in PEERS]


def peer_records(cpus, tarball=LINUX_TARBALL, work=None, cc="aarch64-linux-gnu-gcc"):
    """One record per peer and CPU model (an "error" and no cpb where the
    CPU model lacks the peer's instructions)."""
    work = work or os.path.join(os.path.dirname(HARNESS), "build", "linux-peers")
    version = debian_version(tarball)
    manifest = target_manifest.load()
    records = []
    for peer, cut, params in peer_jobs(tarball, work, cc):
        base = {
            "cipher": "sm4", "impl": "linux", "name": peer.name, "strategy": peer.file,
            "target": peer.target(manifest), "mode": peer.mode, "msg_bytes": params["batch_bytes"],
            "lanes": peer.blocks, "modelled": True, "emulated": False, "arch": "aarch64",
            "function": peer.function, "source": f"{source_top(tarball)}/{CRYPTO_DIR}/{peer.file}",
            "linux_source_version": version, "rounds_per_iteration": 1,
            "loop_kept": True, "markers": False, "marked_regions": 0,
            "compiler": f"{cc} -c (stub headers harness/linux_asm_stubs)",
            "mca_iterations": mca_core.ITERATIONS,
            "note": (f"one 8-block pass: its round loop x {params['rounds']} + the rest once"
                     if params["rounds"] > 1 else "one 8-block pass, straight-line code")
                    + ("; neoverse-n1 has no SM4 instructions" if "sm4e" in peer.round_ops
                       else ""),
        }
        for cpu in cpus:
            rec = dict(base, cpu_model=cpu, cpb=None, gbps=None)
            try:
                rec.update(mca_core.model_cycles(cut, params, cpu, arch=mca_core.AARCH64))
            except RuntimeError as e:
                rec["error"] = str(e)
            records.append(rec)
    return records
