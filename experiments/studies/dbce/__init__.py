"""The delay-based congestion estimators of [TCPDEBUG] ch. 4-5: the networks (``networks``)
and the many-connection scenario captured and analysed (``scenario``). Driver:
``python -m experiments.dbce_tables``."""

from experiments.studies.dbce import scenario  # noqa: F401  (registers the scenarios)
