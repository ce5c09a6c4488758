"""The type checker over the host TCP engine and its variants (mypy, configured in
pyproject.toml's [tool.mypy]; part of `make test`). The hooks' signatures in
hosts/tcp/variants/base.py are the contract every variant is checked against: a hook that
returns what the engine cannot apply, or a policy that assigns what its read-only view shows,
fails here before it runs."""

import textwrap
from pathlib import Path

import mypy.api

ROOT = Path(__file__).resolve().parents[2]

BROKEN = textwrap.dedent('''
    from hosts.tcp.variants.base import Decisions, LossRecoveryPolicy, SenderView
    from netbase.segment import Segment


    class Broken(LossRecoveryPolicy):
        name = "broken"

        def on_dupack(self, view: SenderView, seg: Segment, dupacks: int, *,
                      now: float) -> Decisions:
            view.cwnd = 1
            return 6

        def on_new_ack(self, view: SenderView, *, now: float) -> int:
            return 3
''')


def test_hosts_type_check_and_a_broken_variant_is_caught(tmp_path, monkeypatch):
    broken = tmp_path / "broken_variant.py"
    broken.write_text(BROKEN)
    monkeypatch.chdir(ROOT)                 # the project's modules and mypy's cache
    out, err, status = mypy.api.run(["--config-file", str(ROOT / "pyproject.toml"),
                                     "--no-error-summary", "hosts", str(broken)])
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert err == "" and status == 1, out + err
    # hosts/ itself is clean: every error is the broken variant's (named by its file; mypy's
    # cache may give the path of an earlier run's copy)
    assert [e for e in errors if f"{broken.name}:" not in e] == []
    found = "\n".join(errors)
    assert 'Property "cwnd" defined in "SenderView" is read-only' in found
    assert 'Incompatible return value type (got "int"' in found
    assert 'Return type "int" of "on_new_ack" incompatible' in found
