/*
 * v1model.p4 -- the v1model architecture as the RD-TCP lab's compiler declares it.
 *
 * Written from the documented API of the v1model architecture (behavioral-model
 * docs/simple_switch.md: standard metadata, externs, recirculate/resubmit/clone) in its
 * V1MODEL_VERSION 20180101 form, which is the default of p4c 1.2.x: extern indices are
 * bit<32>. `#include <v1model.p4>` resolves here when toolchain.compiler compiles a program.
 *
 * What the compiler relies on:
 *  - the field order of standard_metadata_t is the order simple_switch lays out its
 *    "standard_metadata" header (JSON header type), so that names and offsets agree;
 *  - @alias("...") names the field under the name simple_switch looks it up by
 *    (JSON "field_aliases");
 *  - extern and function names are mapped one to one onto BMv2 primitives, so they must keep
 *    their v1model spelling.
 */
#ifndef _V1_MODEL_P4_
#define _V1_MODEL_P4_

#include "core.p4"

#ifndef V1MODEL_VERSION
#define V1MODEL_VERSION 20180101
#endif

/* v1model adds three match kinds to the core's exact/ternary/lpm. */
match_kind {
    range,
    optional,
    selector
}

const bit<32> __v1model_version = V1MODEL_VERSION;

#if V1MODEL_VERSION >= 20200408
/* From version 20200408 on, the port type has a name and the indices of counters, meters
 * and registers have a type parameter (counter<I>, meter<I>, register<T, I>). */
typedef bit<9> PortId_t;
#define _V1MODEL_PORT PortId_t
#else
#define _V1MODEL_PORT bit<9>
#endif

/* simple_switch.md "Standard metadata"; order = simple_switch's standard_metadata layout. */
@metadata @name("standard_metadata")
struct standard_metadata_t {
    /* simple_switch port numbers are 9 bits; 511 is the drop port. (No PortId_t typedef
     * in V1MODEL_VERSION 20180101: programs declare it themselves.) */
    _V1MODEL_PORT ingress_port;     /* port the packet arrived on (read-only) */
    _V1MODEL_PORT egress_spec;      /* set in ingress: output port, or 511 to drop */
    _V1MODEL_PORT egress_port;      /* in egress: the port the packet leaves by (read-only) */
    bit<32>  instance_type;    /* 0 normal, 1 ingress clone, 2 egress clone, 4 recirc, 6 resubmit, ... */
    bit<32>  packet_length;    /* bytes, set when the packet arrives */
    @alias("queueing_metadata.enq_timestamp")
    bit<32>  enq_timestamp;    /* microseconds, when the packet was enqueued */
    @alias("queueing_metadata.enq_qdepth")
    bit<19>  enq_qdepth;       /* queue depth in packets when it was enqueued */
    @alias("queueing_metadata.deq_timedelta")
    bit<32>  deq_timedelta;    /* microseconds spent in the queue */
    @alias("queueing_metadata.deq_qdepth")
    bit<19>  deq_qdepth;       /* queue depth in packets when it was dequeued */
    @alias("intrinsic_metadata.ingress_global_timestamp")
    bit<48>  ingress_global_timestamp;  /* microseconds, when ingress started */
    @alias("intrinsic_metadata.egress_global_timestamp")
    bit<48>  egress_global_timestamp;   /* microseconds, when egress started */
    @alias("intrinsic_metadata.mcast_grp")
    bit<16>  mcast_grp;        /* multicast group, set in ingress; 0 = none */
    @alias("intrinsic_metadata.egress_rid")
    bit<16>  egress_rid;       /* replication id of a multicast copy */
    bit<1>   checksum_error;   /* 1 if a verify_checksum failed */
    error    parser_error;     /* the parser's error, error.NoError if none */
    @alias("intrinsic_metadata.priority")
    bit<3>   priority;         /* packet priority (queue selection) */
}
#undef _V1MODEL_PORT

enum CounterType {
    packets,
    bytes,
    packets_and_bytes
}

enum MeterType {
    packets,
    bytes
}

/* Indexed counters: count(i) adds this packet to cell i. */
#if V1MODEL_VERSION >= 20200408
extern counter<I> {
    counter(bit<32> size, CounterType type);
    void count(in I index);
}
#else
extern counter {
    counter(bit<32> size, CounterType type);
    void count(in bit<32> index);
}
#endif

/* A counter with one cell per entry of the table it is attached to (counters = ...). */
extern direct_counter {
    direct_counter(CounterType type);
    void count();
}

/* Two-rate three-colour meters (RFC 2698); the colour is 0 green, 1 yellow, 2 red. */
#if V1MODEL_VERSION >= 20200408
extern meter<I> {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in I index, out T result);
}
#else
extern meter {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in bit<32> index, out T result);
}
#endif

/* A meter with one cell per table entry (meters = ...); read() gives this packet's colour. */
extern direct_meter<T> {
    direct_meter(MeterType type);
    void read(out T result);
}

/* Arrays of state that persist across packets. */
#if V1MODEL_VERSION >= 20200408
extern register<T, I> {
    register(bit<32> size);
    void read(out T result, in I index);
    void write(in I index, in T value);
}
#else
extern register<T> {
    register(bit<32> size);
    void read(out T result, in bit<32> index);
    void write(in bit<32> index, in T value);
}
#endif

/* Shared action storage for tables (implementation = ...). */
extern action_profile {
    action_profile(bit<32> size);
}

/* result = a uniformly random value in [lo, hi]. */
extern void random<T>(out T result, in T lo, in T hi);

/* Send data to the control plane (learn list `receiver`). */
extern void digest<T>(in bit<32> receiver, in T data);

/* The hash algorithms simple_switch ships under these names. */
enum HashAlgorithm {
    crc32,
    crc32_custom,
    crc16,
    crc16_custom,
    random,
    identity,
    csum16,
    xor16
}

/* Make the packet leave by the drop port (egress_spec = 511, mcast_grp = 0). */
@deprecated("Please use mark_to_drop(standard_metadata) instead.")
extern void mark_to_drop();
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

/* result = base + (algo(data) mod max); max = 0 means no reduction. */
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);

/* Action selector for indirect tables with dynamic member selection. */
extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

/* Declared as p4c's v1model.p4 declares it; BMv2 has no such extern (p4c-bm2-ss refuses it). */
@deprecated("Please use verify_checksum/update_checksum instead.")
extern Checksum16 {
    Checksum16();
    bit<16> get<D>(in D data);
}

enum CloneType {
    I2E,
    E2E
}

/* In the verify-checksum control: checksum_error = 1 if algo(data) != checksum (when condition). */
extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

/* In the compute-checksum control: checksum = algo(data) when condition holds. */
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/* As above, the data followed by everything after the last header in data (TCP/UDP). */
extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);
extern void update_checksum_with_payload<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/* Older forms that name the preserved fields by a list; p4c still accepts them. */
@deprecated("Please use resubmit_preserving_field_list instead.")
extern void resubmit<T>(in T data);
@deprecated("Please use recirculate_preserving_field_list instead.")
extern void recirculate<T>(in T data);
@deprecated("Please use clone_preserving_field_list instead.")
extern void clone3<T>(in CloneType type, in bit<32> session, in T data);

/* Send the packet through ingress again; the fields tagged @field_list(index) keep their values. */
extern void resubmit_preserving_field_list(bit<8> index);

/* After the deparser, send the packet back to the parser; @field_list(index) fields are kept. */
extern void recirculate_preserving_field_list(bit<8> index);

/* Copy the packet to the port of mirror session `session` (mirroring_add). */
extern void clone(in CloneType type, in bit<32> session);

/* As clone, the copy keeps the fields tagged @field_list(index). */
extern void clone_preserving_field_list(in CloneType type, in bit<32> session, bit<8> index);

/* Send at most `length` bytes of the packet. */
extern void truncate(in bit<32> length);

/* Stop the switch with an error if check is false (debugging and verification). */
extern void assert(in bool check);
extern void assume(in bool check);

/* Write a message to simple_switch's log; {} in msg are replaced by the members of data. */
extern void log_msg(string msg);
extern void log_msg<T>(string msg, in T data);

/* The six blocks of the V1Switch package, in pipeline order. */
parser Parser<H, M>(packet_in b,
                    out H parsedHdr,
                    inout M meta,
                    inout standard_metadata_t standard_metadata);

control VerifyChecksum<H, M>(inout H hdr,
                             inout M meta);

@pipeline
control Ingress<H, M>(inout H hdr,
                      inout M meta,
                      inout standard_metadata_t standard_metadata);

@pipeline
control Egress<H, M>(inout H hdr,
                     inout M meta,
                     inout standard_metadata_t standard_metadata);

control ComputeChecksum<H, M>(inout H hdr,
                              inout M meta);

@deparser
control Deparser<H>(packet_out b, in H hdr);

package V1Switch<H, M>(Parser<H, M> p,
                       VerifyChecksum<H, M> vr,
                       Ingress<H, M> ig,
                       Egress<H, M> eg,
                       ComputeChecksum<H, M> ck,
                       Deparser<H> dep
                       );

#endif  /* _V1_MODEL_P4_ */
