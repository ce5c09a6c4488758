"""The commands say their own names and explain themselves: the installed scripts name
themselves in their usage line, the modules as ``python -m``; the senders are a metavar in the
usage line and listed by paper with --list-variants."""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.runner.spec import SENDERS
from hosts.tcp.variants import BY_PAPER, VARIANTS, by_paper

ROOT = Path(__file__).resolve().parents[2]


def run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("script, module", [("rdtcp-experiment", "experiments.rdtcp_figures"),
                                            ("rdtcp-live", "experiments.live_run")])
def test_a_command_names_itself_as_it_was_started(script, module):
    path = shutil.which(script)
    assert path, f"{script} is not installed (pip install -e .)"
    as_script = run(path, "--help")
    assert as_script.returncode == 0 and as_script.stdout.startswith(f"usage: {script} ")
    as_module = run(sys.executable, "-m", module, "--help")
    assert as_module.returncode == 0
    assert as_module.stdout.startswith(f"usage: python -m {module} ")


@pytest.mark.parametrize("module, extra", [("one_run", ()), ("live_run", ("linux",)),
                                           ("rdtcp_figures", ())])
def test_the_senders_are_a_metavar_and_listed_by_paper(module, extra, capsys):
    parse_args = importlib.import_module(f"experiments.{module}").parse_args
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    helped = capsys.readouterr().out
    usage = helped.split("\n\n", 1)[0]
    assert "rdtcp-measured-undo" not in usage and "--list-variants" in usage
    assert "[--variant VARIANT]" in usage or "[--variants VARIANTS]" in usage
    with pytest.raises(SystemExit) as ended:
        parse_args(["--list-variants"])
    assert ended.value.code == 0
    listed = capsys.readouterr().out
    names = re.findall(r"[a-z0-9][a-z0-9-]*(?=,|$|:)", listed.replace(" ", ""), re.M)
    assert sorted(n for n in names if n in VARIANTS or n in extra) == sorted((*SENDERS, *extra))
    assert "RD-TCP [RDTCP]:\n  rdtcp, rdtcp-adaptive" in listed


def test_every_variant_has_its_paper():
    # the project's variants (tests register variants of their own into the same registry)
    ours = sorted(n for n, cls in VARIANTS.items() if cls.__module__.startswith("hosts."))
    groups = by_paper(ours)
    assert [heading for heading, _ in groups] == list(BY_PAPER)      # nothing under "other"
    assert sorted(n for _, names in groups for n in names) == ours


def test_a_variant_of_no_known_module_is_listed_as_other(monkeypatch):
    class Stray:
        __module__ = "hosts.tcp.variants.elsewhere"
    monkeypatch.setitem(VARIANTS, "stray", Stray)
    assert by_paper(["sack", "stray"]) == [(list(BY_PAPER)[-1], ["sack"]), ("other", ["stray"])]
