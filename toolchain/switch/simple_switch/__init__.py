"""simple_switch's v1model architecture on top of bm_sim: packet flow and traffic manager."""
