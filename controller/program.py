"""What the controller must know of the program a switch runs: its tables, actions, registers.

A config is checked against it before the first write (controller/commands.py), so that no
command can name something the program lacks, address a cell it does not have, or carry a value
that ``register_write`` would mask to the register's width.

    ProgramInfo.from_json(doc)      # a BMv2 JSON (p4c-bm2-ss's or rdtcp-p4c's), as a dict
    ProgramInfo.load(path_or_doc)   # the same from a file
    ProgramInfo.gateway(max_ports)  # p4src/rdtcp.p4's interface as p4src/README.md documents it,
                                    # for a switch whose JSON the controller cannot see

A malformed JSON is a ``ProgramError`` naming what is missing, never a KeyError.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from controller import names as n

__all__ = ["ProgramError", "ProgramInfo", "RegisterInfo", "TableInfo"]


class ProgramError(ValueError):
    """The program description (BMv2 JSON) cannot be read; the message says why."""


@dataclass(frozen=True)
class RegisterInfo:
    size: int       # cells
    width: int      # bits per cell


@dataclass(frozen=True)
class TableInfo:
    size: int                                   # entries
    keys: tuple[tuple[str, int], ...]           # (match type, width in bits) per key field
    actions: Mapping[str, tuple[int, ...]]      # action name -> widths of its parameters


@dataclass(frozen=True)
class ProgramInfo:
    tables: Mapping[str, TableInfo]
    registers: Mapping[str, RegisterInfo]

    # -------------------------------------------------------------- from BMv2 JSON
    @classmethod
    def load(cls, source: "str | Path | Mapping[str, Any] | ProgramInfo") -> "ProgramInfo":
        if isinstance(source, ProgramInfo):
            return source
        if isinstance(source, Mapping):
            return cls.from_json(source)
        # parsed as the switch parses its JSON (toolchain.switch: BMv2's nesting limit, numbers
        # Python can read), so a hostile file is a one-line error, as it is to the switch
        from toolchain.switch.bm_sim.json_loader import parse_json_text
        from toolchain.switch.errors import LoadError
        path = Path(source)
        try:
            text = path.read_bytes().decode("utf-8")
            doc = parse_json_text(text, str(path))
        except OSError as e:
            raise ProgramError(f"{path}: cannot read the program ({e.strerror or e})") from None
        except UnicodeDecodeError as e:
            raise ProgramError(f"{path}: not a BMv2 JSON file (byte at offset {e.start} is not "
                               "UTF-8: is this a binary file?)") from None
        except LoadError as e:
            raise ProgramError(f"not a BMv2 JSON file: {e}") from None
        if not isinstance(doc, Mapping):
            raise ProgramError(f"{path}: not a BMv2 JSON file (the top level is not an object)")
        return cls.from_json(doc)

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "ProgramInfo":
        try:
            widths = _field_widths(doc)
            actions = {a["id"]: (a["name"], tuple(int(p["bitwidth"]) for p in a.get("runtime_data", ())))
                       for a in doc.get("actions", ())}
            tables = {}
            for pipe in doc.get("pipelines", ()):
                for t in pipe.get("tables", ()):
                    keys = tuple((k["match_type"], _key_width(k, widths)) for k in t.get("key", ()))
                    acts = dict(actions[i] for i in t.get("action_ids", ()))
                    tables[t["name"]] = TableInfo(int(t["max_size"]), keys, acts)
            registers = {r["name"]: RegisterInfo(int(r["size"]), int(r["bitwidth"]))
                         for r in doc.get("register_arrays", ())}
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ProgramError(f"not a BMv2 JSON program: {type(e).__name__} {e} in its tables, "
                               "actions or register arrays") from None
        return cls(tables=tables, registers=registers)

    # -------------------------------------------------------------- documented interface
    @classmethod
    def gateway(cls, max_ports: int = n.DEFAULT_MAX_PORTS,
                epdn_entries: int = n.DEFAULT_EPDN_ENTRIES) -> "ProgramInfo":
        """p4src/rdtcp.p4 compiled with -D MAX_PORTS=max_ports, as p4src/README.md documents
        it (tests/controller checks it against the compiled program)."""
        cells = {"port": max_ports, "pattern": max_ports * n.PATTERN_SLOTS, "epdn": epdn_entries,
                 "switch": 1}
        registers = {name: RegisterInfo(cells[per], width)
                     for name, (width, per) in n.REGISTER_LAYOUT.items()}
        tables = {
            n.IPV4_LPM: TableInfo(n.IPV4_LPM_SIZE, (("lpm", 32),),
                                  {n.IPV4_FORWARD: (48, 9), n.DROP_ACTION: (), n.NO_ACTION: ()}),
            n.L2_FORWARD: TableInfo(max_ports, (("exact", 9),),
                                    {n.L2_OUTPUT: (9,), n.DROP_ACTION: (), n.NO_ACTION: ()}),
            n.EDGE_SOURCE: TableInfo(n.EDGE_SOURCE_SIZE, (("exact", 9), ("lpm", 32)),
                                     {n.SOURCE_OK: (), n.SOURCE_SPOOFED: ()}),
        }
        return cls(tables=tables, registers=registers)


def _field_widths(doc: Mapping[str, Any]) -> dict[tuple[str, str], int]:
    """(header instance, field) -> width, over every header of the program."""
    types = {t["name"]: {f[0]: int(f[1]) for f in t["fields"] if isinstance(f[1], int)}
             for t in doc.get("header_types", ())}
    return {(h["name"], f): w for h in doc.get("headers", ())
            for f, w in types.get(h["header_type"], {}).items()}


def _key_width(key: Mapping[str, Any], widths: Mapping[tuple[str, str], int]) -> int:
    """The key field's width; 0 (not checked) for what is not a plain field (a validity bit)."""
    target = key["target"]
    if isinstance(target, list) and len(target) == 2:
        return widths.get((target[0], target[1]), 0)
    return 0
