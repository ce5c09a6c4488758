"""RR-TCP [RRTCP]: the scenario (``scenario``), the figures and tables as runs
(``evaluation``), the metrics (``report``), the paper's statements checked (``checks``), the
figures (``plots``) and the §5.7 sweep (``sweep57``). Driver:
``python -m experiments.rrtcp_figures``."""

from experiments.studies.rrtcp import scenario  # noqa: F401  (registers the scenarios)
