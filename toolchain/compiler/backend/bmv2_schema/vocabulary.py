"""What BMv2's loader and simple_switch know by name: the JSON format version, expression
operators and their operand kinds, hash algorithms, match and table types, parser operations,
required fields and blocks, integer ranges (each with the source it is read from)."""
from __future__ import annotations

import re

# The loader's major version and the newest minor it reads (P4Objects.cpp, namespace
# constants `required_major_version`, `max_minor_version`; `check_json_version`).
REQUIRED_MAJOR_VERSION = 2
MAX_MINOR_VERSION = 24

# Expression value kinds (expressions.h `ExprType`).
DATA, BOOL, HEADER, STACK, UNION, UNION_STACK, UNKNOWN = (
    "data", "bool", "header", "header_stack", "header_union", "header_union_stack", "unknown")

# Operator names registered in expressions.cpp `ExprOpcodesMap::ExprOpcodesMap`. An unknown
# name is NOT an error there: `get_opcode` uses `operator[]` and yields opcode 0
# (LOAD_FIELD), so a typo silently computes garbage. Value: (left kind, right kind, result)
# as the evaluator pops them in `Expression::eval_`; None = operand must be null/absent.
BINARY_DATA = (DATA, DATA, DATA)
COMPARE = (DATA, DATA, BOOL)
EXPRESSION_OPS = {
    "+": BINARY_DATA, "-": BINARY_DATA, "*": BINARY_DATA, "/": BINARY_DATA,
    "%": BINARY_DATA, "<<": BINARY_DATA, ">>": BINARY_DATA,
    "&": BINARY_DATA, "|": BINARY_DATA, "^": BINARY_DATA,
    "two_comp_mod": BINARY_DATA, "usat_cast": BINARY_DATA, "sat_cast": BINARY_DATA,
    "~": (None, DATA, DATA),
    ">": COMPARE, "<": COMPARE, ">=": COMPARE, "<=": COMPARE,
    "and": (BOOL, BOOL, BOOL), "or": (BOOL, BOOL, BOOL), "not": (None, BOOL, BOOL),
    "d2b": (None, DATA, BOOL), "b2d": (None, BOOL, DATA),
    "valid": (None, HEADER, BOOL), "valid_union": (None, UNION, BOOL),
    "dereference_stack": (STACK, DATA, HEADER),
    "dereference_header_stack": (STACK, DATA, HEADER),
    "dereference_union_stack": (UNION_STACK, DATA, UNION),
    "last_stack_index": (None, STACK, DATA), "size_stack": (None, STACK, DATA),
    # "==", "!=", "?", "access_field" and "access_union_header" are handled specially in
    # build_expression (Checker.operation); "==h"/"!=h"/... are internal opcodes the
    # loader picks from the operand kinds
}

# Ops that pop a header stack but only call StackIface's virtual get_count() on it, so a
# header union stack works as well (expressions.cpp; p4c writes `u.lastIndex` of a union
# stack this way). dereference_header_stack's at() is not virtual: a header stack only.
STACK_COUNT_OPS = {"last_stack_index", "size_stack"}

# Hash algorithms: calculations.cpp REGISTER_HASH, simple_switch.cpp REGISTER_HASH, and the
# named CRCs of crc_map.cpp; `check_hash` also accepts custom "poly_0x..." strings.
HASH_ALGORITHMS = {
    "xxh64", "crc16", "crc32", "crcCCITT", "cksum16", "csum16", "toeplitz", "identity",
    "round_robin", "round_robin_consistent", "xor16", "xor32", "crc8_custom", "crc16_custom",
    "crc32_custom", "crc64_custom", "hash_ex", "bmv2_hash",
    "crc_8", "crc_8_darc", "crc_8_i_code", "crc_8_itu", "crc_8_maxim", "crc_8_rohc",
    "crc_8_wcdma", "crc_16", "crc_16_buypass", "crc_16_dds_110", "crc_16_dect", "crc_16_dnp",
    "crc_16_en_13757", "crc_16_genibus", "crc_16_maxim", "crc_16_mcrf4xx", "crc_16_riello",
    "crc_16_t10_dif", "crc_16_teledisk", "crc_16_usb", "x_25", "xmodem", "modbus", "kermit",
    "crc_ccitt_false", "crc_aug_ccitt", "crc_32", "crc_32_bzip2", "crc_32c", "crc_32d",
    "crc_32_mpeg", "posix", "crc_32q", "jamcrc", "xfer", "crc_64", "crc_64_we",
    "crc_64_jones"}
CUSTOM_CRC = re.compile(r"^poly_0x[0-9a-fA-F]+(_init_0x[0-9a-fA-F]+)?(_xout_0x[0-9a-fA-F]+)?"
                         r"(_not_rev)?$")

MATCH_TYPES = {"exact", "lpm", "ternary", "valid", "range"}   # match_name_to_match_type
TABLE_MATCH_TYPES = {"exact", "lpm", "ternary", "range"}     # match_tables.cpp create_match_unit
TABLE_TYPES = {"simple", "indirect", "indirect_ws"}
PARSER_OPS = {"extract", "extract_VL", "set", "verify", "primitive", "shift", "advance"}

# simple_switch.cpp, SimpleSwitch constructor: `add_required_field(...)`, checked by
# `P4Objects::check_required_fields` at load time.
REQUIRED_FIELDS = [("standard_metadata", f) for f in
                   ("ingress_port", "packet_length", "instance_type", "egress_spec",
                    "egress_port")]
QUEUEING_FIELDS = ("enq_timestamp", "enq_qdepth", "deq_timedelta", "deq_qdepth")
# simple_switch.cpp: get_parser("parser"), get_pipeline("ingress"/"egress"),
# get_deparser("deparser") -- looked up by name with `.at()`.
REQUIRED_BLOCKS = {"parsers": ["parser"], "deparsers": ["deparser"],
                   "pipelines": ["ingress", "egress"]}

INT32_MAX, UINT32_MAX = 2**31 - 1, 2**32 - 1

HEX = re.compile(r"^-?(0x)?[0-9a-fA-F]+$")
_UNSIGNEDHEX = re.compile(r"^(0x)?[0-9a-fA-F]+$")


def hexstr_bytes(text: str) -> int:
    """Bytes of a ByteContainer built from `text` (bytecontainer.h: optional 0x, an odd
    digit count gives a leading half byte)."""
    digits = text[2:] if text.startswith("0x") else text
    return (len(digits) + 1) // 2
