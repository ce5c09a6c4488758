// Header fields of struct type (spec 7.2.2: a struct of bit<W>, bool or such structs may be
// a header field). The BMv2 JSON flattens the header as p4c's FlattenHeaders does
// ("_pos_x0", "_pos_y1", ...). Covers nested structs, a table key on a nested field,
// copies between a header's struct field and a metadata struct, header equality and
// assignment of a list to such a header.
#include <core.p4>
#include <v1model.p4>

struct point_t { bit<8> x; bit<8> y; }
struct box_t { point_t lo; point_t hi; }
header shape_t { bit<8> kind; box_t box; bit<8> area; }
struct headers_t { shape_t shape; shape_t copy; }
struct meta_t { point_t p; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.shape); transition accept; }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action area() {
        hdr.shape.area = (hdr.shape.box.hi.x - hdr.shape.box.lo.x) *
                         (hdr.shape.box.hi.y - hdr.shape.box.lo.y);
    }
    action swap_corners() {
        meta.p = hdr.shape.box.lo;            // header struct field -> metadata struct
        hdr.shape.box.lo = hdr.shape.box.hi;  // between two struct fields of a header
        hdr.shape.box.hi = meta.p;            // metadata struct -> header struct field
    }
    table by_kind {
        key = { hdr.shape.kind: exact; hdr.shape.box.lo.x: ternary; }
        actions = { area; swap_corners; NoAction; }
        const entries = {
            (1, _): area();
            (2, _): swap_corners();
        }
        default_action = NoAction();
    }
    apply {
        std.egress_spec = 1;
        by_kind.apply();
        if (hdr.shape.kind == 3 || hdr.shape.kind == 9) {
            hdr.copy = { 9, { { 1, 2 }, { 3, 4 } }, 0 };
            // equal when every field (nested ones too) is
            if (hdr.copy == hdr.shape) {
                hdr.copy.area = 0xEE;
            }
        }
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.shape); pkt.emit(hdr.copy); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
