"""F-RTO [FRTO]: the scenario of Tables 1-3 and the fairness runs of Figure 9 (``scenario``).
Driver: ``python -m experiments.frto_tables``."""

from experiments.studies.frto import scenario  # noqa: F401  (registers the scenarios)
