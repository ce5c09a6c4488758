"""The p4lang tutorials' runtime JSON (`sN-runtime.json`) applied over P4Runtime.

    python -m controller.runtime_json s1-runtime.json --grpc-addr 127.0.0.1:9559 [--device-id 0]

    {"target": "bmv2",
     "p4info": "build/basic.p4.p4info.txt", "bmv2_json": "build/basic.json",
     "table_entries": [
       {"table": "MyIngress.ipv4_lpm", "default_action": true,
        "action_name": "MyIngress.drop", "action_params": {}},
       {"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.1.1", 32]},
        "action_name": "MyIngress.ipv4_forward",
        "action_params": {"dstAddr": "08:00:00:00:01:11", "port": 1}}],
     "multicast_group_entries": [{"multicast_group_id": 1,
                                  "replicas": [{"egress_port": 1, "instance": 1}]}],
     "clone_session_entries": [{"clone_session_id": 100,
                                "replicas": [{"egress_port": 3, "instance": 1}],
                                "packet_length_bytes": 0}]}

As the tutorials' `p4runtime_lib.simple_controller` reads it: `p4info` and `bmv2_json` name
files relative to the runtime JSON's folder (then to the working directory), and the pipeline
is installed first; an entry with `"default_action": true` sets the table's default; a match
value is a value (exact), `[value, prefix length]` (lpm), `[value, mask]` (ternary) or
`[low, high]` (range); `priority` is taken for tables that need one. The file is data: every
field is checked (a one-line `RuntimeJsonError` names the entry and the field) before anything
is written, and nothing in it is run.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller.p4runtime_client import P4RuntimeClient, P4RuntimeError

__all__ = ["RuntimeJsonError", "load_runtime_json", "apply_runtime_json", "main"]

MAX_FILE = 64 * 1024 * 1024          # bytes of a runtime JSON read at most
_TOP = {"target", "p4info", "bmv2_json", "table_entries", "multicast_group_entries",
        "clone_session_entries"}
_ENTRY = {"table", "match", "action_name", "action_params", "default_action", "priority"}


class RuntimeJsonError(ValueError):
    """A runtime JSON the loader refuses; the message names where."""


def _value_ok(v) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or isinstance(v, str)


def load_runtime_json(path) -> dict:
    """Read and check a runtime JSON; the p4info/bmv2_json paths resolved."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE:
            raise RuntimeJsonError(f"{path}: {size} bytes, more than a runtime JSON holds")
        doc = json.loads(path.read_text())
    except OSError as e:
        raise RuntimeJsonError(f"{path}: {e.strerror or e}") from None
    except (ValueError, RecursionError) as e:
        raise RuntimeJsonError(f"{path}: not JSON ({str(e).splitlines()[0][:120]})") from None
    if not isinstance(doc, dict):
        raise RuntimeJsonError(f"{path}: expected an object at the top")
    unknown = set(doc) - _TOP
    if unknown:
        raise RuntimeJsonError(f"{path}: unknown key {sorted(unknown)[0]!r}")
    if doc.get("target", "bmv2") != "bmv2":
        raise RuntimeJsonError(f"{path}: target {doc.get('target')!r} (this loader drives bmv2)")
    for key in ("p4info", "bmv2_json"):
        if key in doc:
            if not isinstance(doc[key], str):
                raise RuntimeJsonError(f"{path}: {key} must be a file name")
            doc[key] = str(_resolve(path.parent, doc[key]))
    entries = doc.get("table_entries", [])
    if not isinstance(entries, list):
        raise RuntimeJsonError(f"{path}: table_entries must be a list")
    for i, e in enumerate(entries):
        at = f"{path}: table_entries[{i}]"
        if not isinstance(e, dict) or not isinstance(e.get("table"), str):
            raise RuntimeJsonError(f"{at}: an entry is an object with a table name")
        if set(e) - _ENTRY:
            raise RuntimeJsonError(f"{at}: unknown key {sorted(set(e) - _ENTRY)[0]!r}")
        match = e.get("match", {})
        if not isinstance(match, dict) or not all(
                _value_ok(v) or (isinstance(v, list) and len(v) == 2 and all(map(_value_ok, v)))
                for v in match.values()):
            raise RuntimeJsonError(f"{at}.match: field -> value or [value, prefix|mask|high]")
        params = e.get("action_params", {})
        if not isinstance(params, dict) or not all(map(_value_ok, params.values())):
            raise RuntimeJsonError(f"{at}.action_params: name -> value")
        if "action_name" in e and not isinstance(e["action_name"], str):
            raise RuntimeJsonError(f"{at}.action_name must be a string")
        if "priority" in e and (not isinstance(e["priority"], int) or isinstance(e["priority"], bool)):
            raise RuntimeJsonError(f"{at}.priority must be an integer")
    for key, id_key in (("multicast_group_entries", "multicast_group_id"),
                        ("clone_session_entries", "clone_session_id")):
        groups = doc.get(key, [])
        if not isinstance(groups, list):
            raise RuntimeJsonError(f"{path}: {key} must be a list")
        for i, g in enumerate(groups):
            at = f"{path}: {key}[{i}]"
            if not isinstance(g, dict) or not isinstance(g.get(id_key), int):
                raise RuntimeJsonError(f"{at}: needs an integer {id_key}")
            reps = g.get("replicas", [])
            if not isinstance(reps, list) or not all(
                    isinstance(r, dict) and isinstance(r.get("egress_port"), int)
                    and isinstance(r.get("instance", 0), int) for r in reps):
                raise RuntimeJsonError(f"{at}.replicas: a list of {{egress_port, instance}}")
    return doc


def _resolve(folder: Path, name: str) -> Path:
    p = Path(name)
    if p.is_absolute() or not (folder / p).exists():
        return p
    return folder / p


def apply_runtime_json(client: P4RuntimeClient, doc: dict, *, install: bool = True) -> int:
    """Install the pipeline (when the document names one and ``install``), then write every
    entry; the number of updates written. P4RuntimeError names a refused one."""
    if install and "p4info" in doc and "bmv2_json" in doc:
        client.set_pipeline(doc["p4info"], doc["bmv2_json"])
    n = 0
    for i, e in enumerate(doc.get("table_entries", [])):
        match = {k: tuple(v) if isinstance(v, list) else v for k, v in e.get("match", {}).items()}
        try:
            if e.get("default_action"):
                client.table_set_default(e["table"], e["action_name"], e.get("action_params"))
            else:
                client.table_add(e["table"], e["action_name"], match, e.get("action_params"),
                                 priority=e.get("priority", 0))
        except P4RuntimeError as err:
            raise P4RuntimeError(f"table_entries[{i}] ({e['table']}): {err}", err.code,
                                 err.errors) from None
        n += 1
    for g in doc.get("multicast_group_entries", []):
        client.multicast_group(g["multicast_group_id"],
                               [(r["egress_port"], r.get("instance", 0)) for r in g["replicas"]])
        n += 1
    for s in doc.get("clone_session_entries", []):
        client.clone_session(s["clone_session_id"],
                             [(r["egress_port"], r.get("instance", 0)) for r in s["replicas"]],
                             s.get("packet_length_bytes", 0))
        n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m controller.runtime_json",
                                 description="Apply a p4lang tutorials runtime JSON "
                                             "(sN-runtime.json) to a switch over P4Runtime.")
    ap.add_argument("runtime_json")
    ap.add_argument("--grpc-addr", default="127.0.0.1:9559", help="the switch's P4Runtime "
                                                                 "server (default 127.0.0.1:9559)")
    ap.add_argument("--device-id", type=int, default=0)
    ap.add_argument("--election-id", type=int, default=1)
    ap.add_argument("--no-install", action="store_true",
                    help="write the entries only (the switch runs the program already)")
    args = ap.parse_args(argv)
    try:
        doc = load_runtime_json(args.runtime_json)
        client = P4RuntimeClient(args.grpc_addr, device_id=args.device_id,
                                 election_id=args.election_id)
    except (RuntimeJsonError, P4RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    try:
        n = apply_runtime_json(client, doc, install=not args.no_install)
    except P4RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        client.close()
    print(f"{args.runtime_json}: {n} entries written to {args.grpc_addr}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
