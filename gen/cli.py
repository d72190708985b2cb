"""`gen`: regenerate generated/, check that it has not drifted, check that
every kernel program it emits is constant-time (ct-check), explore a
cipher's choices (explore: gen/explore.py), or record and check dispatch's
measured kernel order on this machine (`gen dispatch record|check`:
gen/dispatch_measure.py); the choices it generates with are
gen/choices.toml's (gen/choices.py), the orders gen/dispatch.toml's."""

import argparse
import json
import sys
import time
from pathlib import Path

from . import choices, dispatch, dispatch_measure, explore, explore_measure
from .backends import SIMD_TARGETS, implementations, kernels
from .emit import (build_files, dispatch_files, gf128_files, linux_files, sm4_files, target_files, ublock_files,
                   zuc_files, zuc_kernel_files)
from .emit.bodies import KernelBodies
from .ir import ct_check

ROOT = Path(__file__).resolve().parents[1]


def cipher_sources():
    """Every cipher's C sources and their compiler flags (build_files.CipherSources)."""
    return [sm4_files.sources(), zuc_files.sources(), ublock_files.sources()]


def produce(choices):
    """Every file of generated/ under `choices` (gen/choices.py): each cipher's
    own, then the build over all of them and the target manifest."""
    parts = [sm4_files.files(choices), gf128_files.files(max(t.bits for t in SIMD_TARGETS.values())),
             zuc_files.files(choices), ublock_files.files(choices),
             build_files.files(cipher_sources()), dispatch_files.files(), target_files.files(),
             linux_files.files(choices)]
    products = {}
    for part in parts:
        clash = products.keys() & part.keys()
        if clash:
            raise ValueError(f"two emitters produce {', '.join(sorted(clash))}")
        products.update(part)
    return {f"generated/{path}": text for path, text in products.items()}


def write(products, root):
    changed = 0
    for path, text in sorted(products.items()):
        target = root / path
        if target.exists() and target.read_text() == text:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        changed += 1
    stale = existing(root) - set(products)
    for path in sorted(stale):
        (root / path).unlink()
    return changed, stale


def existing(root):
    folder = root / "generated"
    return {str(p.relative_to(root)) for p in folder.rglob("*") if p.is_file()} if folder.exists() else set()


def check(products, root):
    """Paths whose checked-in text differs from what the generator makes now."""
    drift = [p for p, text in sorted(products.items())
             if not (root / p).exists() or (root / p).read_text() != text]
    drift += sorted(f"{p} (not produced by the generator)" for p in existing(root) - set(products))
    return drift


def kernel_emitters(choices):
    """Per cipher, the emitter function that writes one kernel's C file from
    (strategy, target), under `choices` (gen/choices.py)."""
    def with_key_schedule(kernel_file, key_schedule_file):
        def emit(strategy, target):
            if strategy == "key_schedule":
                return key_schedule_file(target)
            if strategy == "gf128":
                return gf128_files.key_file(target)
            return kernel_file(strategy, target, choices)
        return emit
    return {"sm4": with_key_schedule(sm4_files.kernel_file, lambda target: sm4_files.key_schedule_file(target, choices)),
            "zuc": lambda strategy, target: zuc_kernel_files.kernel_file(strategy, target, choices),
            "ublock": with_key_schedule(ublock_files.kernel_file, ublock_files.key_schedule_file)}


# Per cipher, its key-side files beside the kernels (strategy "key_schedule",
# and with SM4, whose modes use it, the GF(2^128) key side, "gf128"): every one,
# assembly twins included, and the C ones.
KEY_SCHEDULE_FILES = {"sm4": sm4_files.KEY_SCHEDULE_FILES + gf128_files.KEY_FILES,
                      "ublock": ublock_files.KEY_SCHEDULE_FILES}
KEY_SCHEDULES = {"sm4": sm4_files.KEY_SCHEDULES + gf128_files.KEY_FILES_C, "ublock": ublock_files.KEY_SCHEDULES}


def emitted_files(cipher):
    """Every file of lowered programs `cipher`'s emitters write, as (strategy,
    target name): its implementations (assembly twins included) and, beside
    them, SM4's and uBlock's key schedules (strategy "key_schedule")."""
    return implementations(cipher) + KEY_SCHEDULE_FILES.get(cipher, ())


def checked_kernels(cipher):
    """What ct-check goes over for `cipher`, as (strategy, target name): its
    kernels, and the other files of programs it emits per target (SM4's and
    uBlock's key schedules, strategy "key_schedule")."""
    return kernels(cipher) + KEY_SCHEDULES.get(cipher, ())


def emitted_programs(cipher, strategy, target, choices):
    """Every lowered program that `cipher`'s emitter writes for the kernel
    (strategy, target), in its order (emitted_functions)."""
    return [program for _, program in emitted_functions(cipher, strategy, target, choices)]


def emitted_functions(cipher, strategy, target, choices):
    """(KernelBodies, lowered program) of every kernel function `cipher`'s
    emitter writes for the kernel (strategy, target), in its order.  They are
    recorded where each becomes a function body, KernelBodies
    (gen/emit/bodies.py: C statements, or for an assembly twin a call into its
    .S, whose symbols its `functions` then list), while the emitter writes the
    file: so the list is exactly what generated/ holds (plain and
    xor_into_stores forms, ZUC's init and keystream functions, uBlock's
    variants, directions and counter forms), without a second copy of each
    emitter's choices."""
    recorded = []
    original = KernelBodies.__call__

    def recording(self, program, name):
        recorded.append((self, program))
        return original(self, program, name)

    KernelBodies.__call__ = recording
    try:
        kernel_emitters(choices)[cipher](strategy, target)
    finally:
        KernelBodies.__call__ = original
    return recorded


def check_constant_time(choices):
    """ct-check: every emitted kernel program of every target, every
    architecture, through the static constant-time check (gen/ir/ct_check.py)."""
    start = time.monotonic()
    checked, failed, beside = {}, 0, []
    for cipher in kernel_emitters(choices):
        for strategy, name in checked_kernels(cipher):
            target = SIMD_TARGETS[name]
            programs = emitted_programs(cipher, strategy, target, choices)
            if (strategy, name) not in kernels(cipher):
                beside.append(f"{cipher}_{strategy}_{name} ({len(programs)})")
            if not programs:  # nothing seen is nothing checked: the recording point has moved
                print(f"gen ct-check: {cipher}_{strategy}_{name}: no program recorded (does its emitter "
                      f"still write its bodies through KernelBodies?)", file=sys.stderr)
                failed += 1
            for number, program in enumerate(programs, 1):
                checked[target.arch.name] = checked.get(target.arch.name, 0) + 1
                violations = ct_check.check(program)
                failed += bool(violations)
                for violation in violations:
                    print(f"gen ct-check: {cipher}_{strategy}_{name}, program {number} ({program.name}): {violation}",
                          file=sys.stderr)
    per_arch = ", ".join(f"{count} {arch}" for arch, count in checked.items())
    verdict = f"{failed} failed" if failed else "no secret-dependent address, loop bound, branch or opcode"
    print(f"gen ct-check: {sum(checked.values())} kernel programs ({per_arch}): {verdict} "
          f"({time.monotonic() - start:.1f} s)")
    if beside:
        print(f"gen ct-check: programs beside the kernels among them: {', '.join(beside)}")
    return 1 if failed else 0


def dispatch_command(argv):
    """gen dispatch record|check: bench every native kernel of each slot on
    this machine; record writes this CPU's record into gen/dispatch.toml (run
    `gen` after it), check compares dispatch's default with the fastest."""
    parser = argparse.ArgumentParser(prog="gen dispatch", description=dispatch_command.__doc__)
    parser.add_argument("action", choices=("record", "check"))
    parser.add_argument("--build", type=Path, default=ROOT / "build",
                        help="the harness build whose bench and kcrypt run (default: build/, from `make build`)")
    parser.add_argument("--rounds", type=int, default=3, help="bench runs per slot, in turns, best kept")
    parser.add_argument("--note", default="", help="record: a remark kept in the record (e.g. how quiet the machine was)")
    parser.add_argument("--tolerance", type=float, default=0.03, help="check: how far below the fastest the default may be")
    args = parser.parse_args(argv)
    figures = dispatch_measure.measure(args.build, args.rounds, progress=lambda s: print(s, file=sys.stderr))
    if args.action == "record":
        _, _, key = dispatch_measure.listing(args.build)
        new = dispatch_measure.record(key, figures, args.note)
        dispatch.PATH.write_text(dispatch.dumps(dispatch.with_record(dispatch.load(), new)))
        for slot, kernels in new.order.items():
            print(f"{slot}: " + ", ".join(f"{k} {new.gbps[slot][k]}" for k in kernels))
        print(f"gen dispatch: wrote the record of {key} into {dispatch.PATH}; run `gen` to render it")
        return 0
    rows = dispatch_measure.check(args.build, figures, args.tolerance)
    for slot, variant, kernel, source, mine, fastest, best, ratio, ok in rows:
        print(f"{slot:14} {variant:14} default {kernel} ({source}) {mine:.2f} Gbit/s, fastest {fastest} "
              f"{best:.2f}: {ratio:.3f} {'ok' if ok else 'SLOWER'}")
    return 0 if all(row[-1] for row in rows) else 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["dispatch"]:
        return dispatch_command(argv[1:])
    parser = argparse.ArgumentParser(prog="gen", description=__doc__)
    parser.add_argument("command", nargs="?", default="generate", choices=("generate", "check", "ct-check", "explore"))
    parser.add_argument("cipher", nargs="?", choices=explore.CIPHERS, help="explore: the cipher whose choices")
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this checkout)")
    parser.add_argument("--choose", action="append", default=[], metavar="NAME=VALUE",
                        help="override a choice of gen/choices.toml for this run: sm4.decomposition=415, "
                             "zuc.s1_isomorphism.avx2_gfni=3, sm4.groups.byteslice_avx2_gfni=4, zuc.block_form=rolled")
    parser.add_argument("--sm4-decomposition", type=int, default=None, metavar="N",
                        help="the same as --choose sm4.decomposition=N")
    explore_options = parser.add_argument_group("explore")
    explore_options.add_argument("--param", action="append", default=[],
                                 help="only this parameter of the cipher (groups, block_form, ...; repeatable; "
                                      "default: all of them)")
    explore_options.add_argument("--target", action="append", default=[], help="only this target's kernels (repeatable)")
    explore_options.add_argument("--depth", choices=("static", "model", "measure"), default="static",
                                 help="static: operations by kind, constant bytes, spills of each lowered program; "
                                      "model: and llvm-mca's cycles per byte of each distinct program; "
                                      "measure: and the --top cheapest values of each kernel this CPU runs, "
                                      "timed by bench")
    explore_options.add_argument("--top", type=int, default=5, help="groups of values shown (and timed) per kernel")
    explore_options.add_argument("--jobs", type=int, default=None, help="processes (default: every core)")
    explore_options.add_argument("--json", type=Path, default=None, help="write every cost here")
    explore_options.add_argument("--costs", type=Path, default=None,
                                 help="rank the costs a --json run wrote (on this machine or another) instead of "
                                      "computing them")
    explore_options.add_argument("--png", type=Path, default=None, help="plot the spread per kernel here")
    explore_options.add_argument("--apply", action="store_true",
                                 help="write the best choice and its ranking into gen/choices.toml (with "
                                      "--target: the parameters keyed by kernel, for those targets' kernels)")
    args = parser.parse_args(argv)
    try:
        chosen = choices.load()
        if args.sm4_decomposition is not None:
            args.choose.insert(0, f"sm4.decomposition={args.sm4_decomposition}")
        for assignment in args.choose:
            chosen = chosen.with_choice(assignment)
        if args.command == "explore":
            return explore_command(args, chosen)
        if args.cipher is not None:
            parser.error(f"{args.command} takes no cipher")
        if args.command == "ct-check":
            return check_constant_time(chosen)
        start = time.monotonic()
        products = produce(chosen)
    except ValueError as err:
        print(f"gen: {err}", file=sys.stderr)
        return 2
    if args.command == "check":
        drift = check(products, args.root)
        if drift:
            print("gen check: generated/ differs from what the generator produces now:", file=sys.stderr)
            for path in drift:
                print(f"  {path}", file=sys.stderr)
            print("run `gen` and commit the result", file=sys.stderr)
            return 1
        print(f"gen check: {len(products)} files up to date ({time.monotonic() - start:.1f} s)")
        return 0
    changed, stale = write(products, args.root)
    print(f"gen: {len(products)} files in generated/, {changed} rewritten, {len(stale)} removed "
          f"({time.monotonic() - start:.1f} s)")
    return 0


def explore_command(args, chosen):
    """gen explore <cipher>: per parameter the ranked table, the best and worst
    value of each kernel, the JSON and PNG, and with --apply gen/choices.toml
    rewritten."""
    if args.cipher is None:
        raise ValueError(f"explore: which cipher? (gen explore {'|'.join(explore.CIPHERS)})")
    params = explore.parameters(args.cipher)
    if args.param:
        names = {p.name.split(".")[1]: p for p in params}
        unknown = [n for n in args.param if n not in names]
        if unknown:
            raise ValueError(f"explore: {args.cipher} has no parameter {', '.join(unknown)}; its parameters: "
                             f"{', '.join(names)}")
        params = [names[n] for n in args.param]
    known = {t for p in params for _, t in explore.reached(p)}
    unknown = [t for t in args.target if t not in known]
    if unknown:
        raise ValueError(f"explore: {args.cipher} has no kernel on {', '.join(unknown)}; its targets: "
                         f"{', '.join(sorted(known))}")
    shared = [p.name for p in params if p.keyed != "kernel"]
    if args.apply and args.target and shared:
        raise ValueError(f"explore --apply --target: {', '.join(shared)} take one value for every kernel or "
                         f"target and one ranking line: rank every target (no --target), or --param a parameter "
                         f"keyed by kernel")
    values, rankings, dumped = dict(chosen.values), dict(chosen.rankings), {}
    machine = explore_measure.cpu_name() if args.depth == "measure" and not args.costs else ""
    saved = json.loads(args.costs.read_text()) if args.costs else None
    if saved is not None:
        params = [p for p in params if p.name in saved]
        if not params:
            raise ValueError(f"explore --costs {args.costs}: no costs of {args.cipher}'s parameters there")
    for param in params:
        start = time.monotonic()
        if saved is not None:
            depth, machine = saved[param.name]["depth"], saved[param.name]["machine"]
            costs = {v: saved[param.name]["costs"][explore.value_key(v)] for v in param.values()}
            # What this generator cannot write (explore._cost_value) is no value, whatever was timed.
            static = explore.static_costs(param, chosen, args.target, args.jobs)
            costs = explore.ranked_on_dispatch({v: {k: static[v][k] if "invalid" in static[v].get(k, {}) else c
                                                    for k, c in per.items()} for v, per in costs.items()})
        else:
            depth = args.depth
            costs = explore.static_costs(param, chosen, args.target, args.jobs)
            # llvm-mca models a kernel's batch (harness/mca_model.py): not the
            # assembly alone, nor another form.
            if depth != "static" and param.form == "batch" and not param.name.endswith(".asm_pressure_schedule"):
                costs = explore.with_model(costs, explore.modelled_costs(param, costs, chosen))
            if depth == "measure":
                costs = explore_measure.measure(param, costs, explore.rank(costs), lambda value, strategy, target:
                                                explore.kernel_files(param.cipher, strategy, target, chosen.with_choice(
                                                    param.assignment(value, param.key(strategy, target)))), args.top)
        ranking = explore.rank(costs)
        print(f"gen explore {args.cipher}: {param.name}, {len(costs)} values ({param.what}) x {len(ranking)} "
              f"kernels, depth {depth} ({time.monotonic() - start:.1f} s)\n")
        print(explore.table(param, ranking, args.top))
        print()
        print(explore.report(param, ranking, chosen))
        if depth == "measure":
            for target, (rho, n) in explore.correlations(ranking).items():
                print(f"Spearman's rho, modelled against measured, {target}: "
                      + (f"{rho:+.2f} over {n} values timed" if rho is not None else f"n/a ({n} values timed)"))
        best = explore.best_per_key(param, costs, chosen)
        value = best[None][0] if param.keyed == "one" else {**chosen.values[param.name],
                                                            **{k: v for k, (v, _) in best.items()}}
        print("\n" + explore.verdict(param, best, chosen) + "\n")
        values[param.name] = value
        summary = explore.summary(param, ranking, best, depth, machine)
        # (keyed by kernel: the kernels not ranked, --target, keep their lines)
        rankings[param.name] = {**rankings.get(param.name, {}), **summary} if param.keyed == "kernel" else summary
        dumped[param.name] = {"depth": depth, "machine": machine,
                              "costs": {explore.value_key(v): c for v, c in costs.items()}}
        # Written after each parameter, so that an interrupted run keeps what it found.
        if args.json:
            args.json.write_text(json.dumps(dumped, indent=1))
        if args.apply:          # and the next parameter is explored with this one's best
            chosen = choices.Choices(dict(values), dict(rankings))
            choices.PATH.write_text(choices.dump(chosen))
        if args.png:
            png = args.png if len(params) == 1 else args.png.with_stem(f"{args.png.stem}-{param.name}")
            explore.plot(ranking, png, f"gen explore {args.cipher}: {param.name}, {len(costs)} values, "
                                       f"depth {depth}" + (f", {machine}" if machine else ""))
            print(f"gen explore: wrote {png}")
    if args.json:
        print(f"gen explore: wrote {args.json}")
    if args.apply:
        print(f"gen explore: wrote {choices.PATH.relative_to(ROOT)}: "
              + "; ".join(f"{p.name} = {values[p.name]}" for p in params))
    return 0


if __name__ == "__main__":
    sys.exit(main())
