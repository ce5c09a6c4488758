/*
 * core.p4 -- the P4_16 core library, as the RD-TCP lab's compiler declares it.
 *
 * Written from the P4_16 language specification (v1.2.x): section "P4 core library"
 * (errors, packet_in / packet_out, verify, NoAction, match kinds). This is the project's own
 * declarations file; `#include <core.p4>` resolves here when toolchain.compiler compiles a
 * program. Error and match-kind names must keep their spec spelling: the compiler maps them
 * onto the names BMv2 expects (errors get the values 0..6 in the order listed below, as p4c
 * assigns them, so `standard_metadata.parser_error` compares the same on both toolchains).
 */
#ifndef _CORE_P4_
#define _CORE_P4_

/* Spec "Errors": the parser errors every target must be able to signal. */
error {
    NoError,               /* no error */
    PacketTooShort,        /* not enough bits in the packet for extract */
    NoMatch,               /* select expression has no matching case */
    StackOutOfBounds,      /* reference to an invalid element of a header stack */
    HeaderTooShort,        /* extract of a variable-size header exceeded its declared size */
    ParserTimeout,         /* parser execution took too long */
    ParserInvalidArgument  /* parser operation called with a value it does not support */
}

/* Spec "Packet parsing": the packet being parsed, consumed from the front. */
extern packet_in {
    /* Read a fixed-size header and advance past it; the header becomes valid. */
    void extract<T>(out T hdr);
    /* Read a header whose one varbit field has the given size in bits. */
    void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);
    /* Read bits without advancing. */
    T lookahead<T>();
    /* Skip the given number of bits. */
    void advance(in bit<32> sizeInBits);
    /* Length of the packet in bytes (not supported by every target). */
    bit<32> length();
}

/* Spec "Deparsing": the packet being built; emit appends a header if it is valid. */
extern packet_out {
    void emit<T>(in T hdr);
}

/* Spec "The verify statement": stop parsing with toSignal unless check holds. */
extern void verify(in bool check, in error toSignal);

/* Spec "Built-in actions": the action that does nothing. */
@noWarn("unused")
action NoAction() {}

/* Spec "Match kinds": the three every target supports. */
match_kind {
    exact,
    ternary,
    lpm
}

/* Checked by the compiler: a false check stops the compilation with the message; the call
 * itself is the constant true (`const bool ok = static_assert(V1MODEL_VERSION > 1, "..");`). */
extern bool static_assert(bool check, string message);
extern bool static_assert(bool check);

#endif  /* _CORE_P4_ */
