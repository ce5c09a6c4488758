"""P4Info (the P4Runtime description of a program's control-plane objects) from the front end.

    rdtcp-p4c prog.p4 -o prog.json --p4runtime-files prog.p4info.txtpb[,prog.p4info.json,...]

    from toolchain.compiler.p4info import build_p4info, write_p4info_files
    info = build_p4info(program)                 # program: parse_and_check's checked AST
    write_p4info_files(info, "build/prog.p4info.txtpb,build/prog.p4info.json")

The P4Info is made from the checked program before the mid end runs, as p4c-bm2-ss makes it
after its front end; its names are the BMv2 JSON's, so a P4Runtime server matches the two
by name (as simple_switch_grpc does). `ids.py`: ids (type prefix + Jenkins hash of the name,
`@id` honoured, collisions probed) and aliases (shortest unique suffix); `typespec.py`: P4
types as P4DataTypeSpec and the program's type_info (new types, `@p4runtime_translation`,
serializable enums, structs of digests); `build.py`: the objects, in the order and with the
details p4c gives them; `files.py`: the text, JSON and binary formats, chosen by file suffix
as p4c does (`--p4runtime-format` for other names and for `--p4runtime-file`).

How it was checked: of p4c's `testdata/p4_16_samples` v1model programs that have an expected
`.p4info.txtpb` and that this front end compiles (452; snapshot of 2026-08-07), the text
written here is byte for byte p4c's for 440. The 12 others differ where this front end
names or keeps things otherwise in the BMv2 JSON as well, or in details no control plane
reads: key names of fields under a struct field's `@name` or of a struct-typed key (3), a
sub-control or sub-parser instance renamed for shadowing or inlining (2), `@name` on a
control, a constant mask printed as written (`0x010101...`), a table or action in code that
p4c's constant folding removes (`false ? t.apply()...`, `if (true) exit;`) (2), structured
annotations (`@a[k=v]`, not parsed here), a register of a typedef'd extern type p4c leaves
out, and an empty `type_info` written for a program whose only extern call is in a function
(p4c writes none). (The programs and
expected files were read from p4c's public repository for this check only; none is in
this repository.) Tests: tests/toolchain/compiler/test_p4info.py.
"""
from .build import P4InfoError, build_p4info, p4info_pb2
from .files import (FORMATS, P4InfoFileError, format_for, parse_p4info, serialize,
                    write_p4info_file, write_p4info_files)
from .ids import Prefix, jenkins_one_at_a_time

__all__ = ["build_p4info", "P4InfoError", "p4info_pb2", "write_p4info_files", "serialize",
           "format_for", "FORMATS", "P4InfoFileError", "write_p4info_file", "parse_p4info",
           "Prefix", "jenkins_one_at_a_time"]
