"""Ctrl-C ends every command the same way (issue 39): one line on standard error,
status 130, no traceback and no "Exception ignored" -- whenever it comes: while the
command builds its parser (imports), in the middle of its work, or inside a finaliser
(llvmlite's, while numba loads kernels), where Python used to print the interrupt as
ignored and the command went on to exit 0.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

INTERRUPTED = "chinese-poker: interrupted\n"


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def test_ctrl_c_inside_a_finaliser_ends_the_command() -> None:
    done = _python(
        """
        import os, signal, sys, time
        from chinese_poker import cli
        from chinese_poker.cli import solve

        class Finaliser:
            def __del__(self):
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1.0)  # the KeyboardInterrupt is raised here, in the finaliser

        def run(args):
            Finaliser()  # dropped at once: its __del__ runs, as llvmlite's do
            time.sleep(0.5)
            print("solved")
            return 0

        solve.run = run
        sys.exit(cli.main(["solve", "setting", "As"]))
        """
    )
    assert (done.returncode, done.stderr, done.stdout) == (130, INTERRUPTED, "")


def test_ctrl_c_while_the_parser_is_built() -> None:
    done = _python(
        """
        import sys
        from chinese_poker import cli

        def build_parser():
            raise KeyboardInterrupt  # as while a command's module is imported

        cli.build_parser = build_parser
        cli.entry()
        """
    )
    assert (done.returncode, done.stderr) == (130, INTERRUPTED)


# The signal comes while the command imports its modules (or a moment later, while it
# solves): "ready" is printed as the command starts to build its parser.
START = """
import sys
from chinese_poker import cli

build_parser = cli.build_parser

def announced():
    print("ready", flush=True)
    return build_parser()

cli.build_parser = announced
cli.entry()
"""


def test_a_real_ctrl_c_soon_after_the_start() -> None:
    deal = ["As", "Ah", "Ad", "Kc", "Kd", "Ks", "Qh", "Qd", "2c", "3c", "4c", "5c", "7d"]
    proc = subprocess.Popen(
        [sys.executable, "-c", START, "solve", "setting", *deal],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert (proc.returncode, err) == (130, INTERRUPTED), err
