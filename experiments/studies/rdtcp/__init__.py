"""RD-TCP [RDTCP]: the dumbbell scenario (``scenario``), the figures' points and the paper
table (``report``), Figures 1-9 (``plots``) and the incremental-deployment series
(``legacy``). Driver: ``python -m experiments.rdtcp_figures``."""

from experiments.studies.rdtcp import scenario  # noqa: F401  (registers the scenarios)
