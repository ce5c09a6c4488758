"""P4Runtime for the switch (simple_switch_grpc's role): a gRPC server speaking p4.v1.P4Runtime
beside the Thrift API, over the same switch state.

    rdtcp-switch --grpc-server-addr 127.0.0.1:9559 --cpu-port 64 --no-p4 ...

| module | what |
|---|---|
| `server.py` | the gRPC server, the executors that run calls on the switch's thread, the CPU port |
| `service.py` | the RPCs: Write, Read, Set/GetForwardingPipelineConfig, Capabilities, StreamChannel |
| `arbitration.py` | primary election per role (§5) |
| `device.py` | the pipeline (§7) and the dispatch of updates and reads by entity |
| `pipeline.py` | the P4Info bound to the BMv2 JSON by name (a disagreement is INVALID_ARGUMENT) |
| `tables.py` | table entries, default entries, direct counters and meters (§9.1) |
| `externs.py` | action profiles, counters, meters, registers, multicast, clone sessions, value sets, digest configs |
| `packet_io.py` | PacketIn/PacketOut through the CPU port, DigestList/DigestListAck |
| `errors.py` | status codes and byte strings (§8.3) |

The specification is P4Runtime v1.4 (p4.org); where it leaves the target a choice, this server
does what simple_switch_grpc does with BMv2 (each such place says so).

The modules import gRPC and the P4Runtime packages; the switch process imports only
`process` until a server is asked for, so it runs without them (and under PyPy) otherwise.
"""
