"""Runs the stages of `make test`: groups one after the other, the stages of a
group side by side on the machine's cores, each stage's output in a log file
of its own, and a table of where the time went.

    python3 harness/stages.py --logs build/stages --table build/stages.md \\
        gen-check='gen check' build='make build' --then \\
        pytest='python3 -m pytest -q' verify='build/verify --iterated native' ...

A stage is NAME=COMMAND (run by bash).  `--then` ends a group: the next group
starts when every stage of this one has passed (they build what it needs).
Within a group at most --jobs stages run at once (default: the number of
cores), started in the order given, so the longest should come first.

Progress goes to stdout: a line when a stage starts and ends (wall and CPU
seconds: the stage's processes and every descendant it waited for), a line
of what is still running every --heartbeat seconds, and the last lines of
the log of a stage that fails.  At the end the table (stage, status, wall,
CPU) is printed and written as Markdown to --table.  Exit status: 0 when
every stage passed, 1 otherwise; a failing stage does not stop the others of
its group, but no later group starts.
"""

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Stage:
    name: str
    command: str
    group: int
    status: str = "not run"
    wall: float = 0.0
    cpu: float = 0.0
    started: float = 0.0
    process: subprocess.Popen | None = field(default=None, repr=False)


def parse_stages(words):
    """NAME=COMMAND words and `--then` separators into stages with a group number."""
    stages, group = [], 0
    for word in words:
        if word == "--then":
            group += 1
            continue
        name, sep, command = word.partition("=")
        if not sep or not name or not command:
            raise SystemExit(f"stages: '{word}' is not NAME=COMMAND")
        if any(s.name == name for s in stages):
            raise SystemExit(f"stages: two stages are named '{name}'")
        stages.append(Stage(name, command, group))
    if not stages:
        raise SystemExit("stages: no stage given")
    return stages


def say(text):
    print(f"stages: {text}", flush=True)


def start(stage, logs):
    log = open(logs / f"{stage.name}.log", "wb")
    stage.started = time.monotonic()
    stage.process = subprocess.Popen(["bash", "-c", stage.command], stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
    log.close()
    say(f"[{stage.name}] started: {stage.command}")


def finish(stage, status, rusage, logs, tail):
    """Records a stage that ended, with its wall and CPU time; a failure's
    log tail is printed."""
    stage.wall = time.monotonic() - stage.started
    stage.cpu = rusage.ru_utime + rusage.ru_stime
    code = os.waitstatus_to_exitcode(status)
    stage.status = "passed" if code == 0 else f"FAILED ({code})"
    say(f"[{stage.name}] {stage.status} in {stage.wall:.0f} s (CPU {stage.cpu:.0f} s)")
    if code != 0:
        lines = (logs / f"{stage.name}.log").read_text(errors="replace").splitlines()
        say(f"[{stage.name}] the last {min(tail, len(lines))} lines of {logs / (stage.name + '.log')}:")
        for line in lines[-tail:]:
            print(f"  | {line}")
        sys.stdout.flush()


def run_group(stages, jobs, logs, heartbeat, tail):
    waiting, running = list(stages), {}
    last_beat = time.monotonic()
    while waiting or running:
        while waiting and len(running) < jobs:
            stage = waiting.pop(0)
            start(stage, logs)
            running[stage.process.pid] = stage
        pid, status, rusage = os.wait4(-1, os.WNOHANG)
        if pid == 0:
            time.sleep(0.5)
            if time.monotonic() - last_beat >= heartbeat:
                last_beat = time.monotonic()
                now = time.monotonic()
                say("running: " + ", ".join(f"{s.name} ({(now - s.started) / 60:.0f} min)"
                                            for s in running.values()))
            continue
        if pid in running:
            finish(running.pop(pid), status, rusage, logs, tail)


def table(stages, total):
    rows = ["| stage | status | wall (s) | CPU (s) |", "|---|---|---:|---:|"]
    for s in stages:
        rows.append(f"| {s.name} | {s.status} | {s.wall:.0f} | {s.cpu:.0f} |")
    rows.append(f"| all | | {total:.0f} | {sum(s.cpu for s in stages):.0f} |")
    return "\n".join(rows) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="stages of a group run at once (default: the number of cores)")
    parser.add_argument("--logs", type=Path, required=True, help="folder for one log file per stage")
    parser.add_argument("--table", type=Path, help="write the time table (Markdown) here")
    parser.add_argument("--heartbeat", type=float, default=120, help="seconds between 'running:' lines")
    parser.add_argument("--tail", type=int, default=60, help="log lines shown of a failed stage")
    parser.add_argument("stages", nargs=argparse.REMAINDER, help="NAME=COMMAND ... [--then NAME=COMMAND ...]")
    args = parser.parse_args(argv)
    stages = parse_stages(args.stages)
    args.logs.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    for group in range(stages[-1].group + 1):
        members = [s for s in stages if s.group == group]
        run_group(members, max(1, args.jobs), args.logs, args.heartbeat, args.tail)
        if any(s.status != "passed" for s in members):
            break
    text = table(stages, time.monotonic() - t0)
    print(text, end="")
    if args.table:
        args.table.parent.mkdir(parents=True, exist_ok=True)
        args.table.write_text(text)
    failed = [s.name for s in stages if s.status.startswith("FAILED")]
    if failed:
        not_run = [s.name for s in stages if s.status == "not run"]
        say("FAILED: " + ", ".join(failed) + (f"; not run: {', '.join(not_run)}" if not_run else "")
            + f" (logs in {args.logs})")
        return 1
    say(f"every stage passed (logs in {args.logs})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
