#!/usr/bin/env python3
"""Time to first paint of `numatune review` with a 5,000-change plan,
against a minimal Textual app started the same way.

    python bench/tui_first_paint.py [--reps 5] [--changes 5000]

Each run is a fresh process (`python bench/tui_first_paint.py --child ...`)
running its app headless at 120x40; the child prints a line once the
screen holding its content has been painted (for review: the plan table
with its first rows, after the plan arrived from its worker thread). The
parent times process start to that line; medians of --reps interleaved
runs. Ratios print as `NAME = N.NN`; lines starting with '#' are details.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SIZE = (120, 40)


def fake_plan(n):
    """A plan of ``n`` changes over every area, made of the real model
    objects the knob families yield."""
    from numatune.model import AREAS, Change, Finding, Plan, Write
    changes = []
    for i in range(n):
        scope = ("live", "persistent", "boot")[i % 3]
        key = "kernel.bench_knob_%05d" % i
        write = (Write(kind="file", path="/etc/sysctl.d/90-numatune.conf", editor="sysctl_set",
                       args={"key": key, "value": "1"}) if scope == "persistent" else
                 Write(kind="value", path="/proc/sys/kernel/bench_knob_%05d" % i, value="1"))
        changes.append(Change(id="bench.%s:%s" % (scope, key), area=AREAS[i % len(AREAS)], target=key,
                              current="0", desired="1", scope=scope, action="set " + key, why="benchmark",
                              reboot_required=scope == "boot", risk=("low", "medium", "high")[i % 3],
                              rule="sysctl." + key, writes=[write]))
    order = {a: i for i, a in enumerate(AREAS)}
    changes.sort(key=lambda c: order[c.area])
    findings = [Finding(id="bench.f%d" % i, severity="warning", area="kernel", message="finding %d" % i)
                for i in range(20)]
    return Plan(host={"hostname": "bench", "root": "/"}, changes=changes, findings=findings)


def child_review(changes):
    sys.path[:0] = [REPO, os.path.join(REPO, "tui")]
    from numatune import engine
    from numatune.root import Root
    from numatune_tui.app import ReviewApp

    class Timed(ReviewApp):
        painted = False

        def on_mount(self):
            self.set_interval(0.002, self._check)

        def _check(self):
            screen = self.screen
            if not self.painted and self.plan is not None and getattr(screen, "rows", None):
                self.painted = True
                self.call_after_refresh(self._done)

        def _done(self):
            print("painted %d rows" % len(self.screen.rows), flush=True)
            self.exit(0)

    with tempfile.TemporaryDirectory() as root:
        policy = engine.load_policy([], Root(root))
        # The plan is made in the app's worker thread, where facts are read.
        app = Timed(Root(root), policy, plan_source=lambda: (fake_plan(changes), {}))
        app.run(headless=True, size=SIZE)


def child_minimal():
    from textual.app import App
    from textual.widgets import Footer, Header, Static

    class Minimal(App):
        def compose(self):
            yield Header()
            yield Static("hello")
            yield Footer()

        def on_mount(self):
            self.call_after_refresh(self._done)

        def _done(self):
            print("painted", flush=True)
            self.exit(0)

    Minimal().run(headless=True, size=SIZE)


# The warm-up run writes the children's bytecode (as bench/run.py's runs do):
# without it the review child compiles numatune and the TUI at every run.
ENV = dict(os.environ, PYTHONDONTWRITEBYTECODE="")


def first_paint(argv):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=ENV)
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    out, err = proc.communicate(timeout=60)
    if proc.returncode != 0 or not line.startswith("painted"):
        raise SystemExit("bench: %s failed (%d): %s" % (argv[-1], proc.returncode, (err or line).strip()[-300:]))
    return elapsed, line.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--changes", type=int, default=5000)
    parser.add_argument("--child", choices=("review", "minimal"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "review":
        return child_review(args.changes)
    if args.child == "minimal":
        return child_minimal()
    try:
        import textual
    except ImportError:
        raise SystemExit("bench: needs Textual: pip install -e '.[tui]'")
    me = [sys.executable, os.path.abspath(__file__)]
    runs = {"review": me + ["--changes", str(args.changes), "--child", "review"], "minimal": me + ["--child", "minimal"]}
    times = {name: [] for name in runs}
    detail = ""
    for name, argv in runs.items():
        first_paint(argv)  # warm the page cache and bytecode
    for _ in range(args.reps):
        for name, argv in runs.items():
            elapsed, line = first_paint(argv)
            times[name].append(elapsed)
            if name == "review":
                detail = line
    review, minimal = (statistics.median(times[n]) for n in ("review", "minimal"))
    print("# textual %s, %dx%d headless, %d changes (%s), median of %d runs"
          % (textual.__version__, SIZE[0], SIZE[1], args.changes, detail, args.reps))
    print("# review first paint %.3f s, minimal Textual app %.3f s" % (review, minimal))
    print("tui_first_paint/minimal = %.2f" % (review / minimal))


if __name__ == "__main__":
    main()
