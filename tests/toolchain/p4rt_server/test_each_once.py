"""The one check of a message's repeated, id-named items (match fields, action parameters,
PacketOut metadata): each id known, none given twice, the refusal naming which."""
from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

pytest.importorskip("grpc")

from toolchain.switch.p4runtime_server.errors import Code, P4RTError, each_once  # noqa: E402

KNOWN = {1: NS(name="hdr.ethernet.dst"), 2: NS(name="port")}


def _check(items, **kw):
    return each_once(items, lambda m: m.field_id, KNOWN, "table fwd", "match field",
                     lambda info, m: (info.name, m.value), **kw)


def test_each_known_id_once_maps_to_its_value():
    got = _check([NS(field_id=2, value=b"\x01"), NS(field_id=1, value=b"\x02")])
    assert got == {2: ("port", b"\x01"), 1: ("hdr.ethernet.dst", b"\x02")}


@pytest.mark.parametrize("ids, words", [
    ((1, 9), "table fwd: no match field with id 9"),
    ((2, 1, 2), "table fwd: match field port given twice"),
])
def test_an_unknown_or_repeated_id_is_an_invalid_argument_naming_it(ids, words):
    with pytest.raises(P4RTError) as e:
        _check([NS(field_id=i, value=b"") for i in ids])
    assert (e.value.code, str(e.value)) == (Code.INVALID_ARGUMENT, words)


def test_a_name_kept_elsewhere_in_the_info():
    with pytest.raises(P4RTError, match="PacketOut: metadata egress_port given twice"):
        each_once([NS(i=1), NS(i=1)], lambda m: m.i, {1: ("egress_port", 9)}, "PacketOut",
                  "metadata", lambda info, m: 0, name_of=lambda info: info[0])
