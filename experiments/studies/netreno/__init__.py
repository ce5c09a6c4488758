"""Net Reno [NETRENO]: the simulation, lab and trace scenarios (``scenario``) and Tables 1-3
with Figure 1 (``report``). Driver: ``python -m experiments.netreno_tables``."""

from experiments.studies.netreno import scenario  # noqa: F401  (registers the scenarios)
