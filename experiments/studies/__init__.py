"""The studies: one package per paper the lab reproduces, each holding its scenario (the runs),
its checks, its report and its plots, on the run machinery of :mod:`experiments.runner`.

- :mod:`~experiments.studies.rdtcp`: RD-TCP [RDTCP], Figures 1-4, the P4 injections, the k
  study and the incremental deployment.
- :mod:`~experiments.studies.rrtcp`: RR-TCP's DSACK schemes [RRTCP], Figures 1 and 4-19,
  Tables 3-4 and the §5.7 sweep.
- :mod:`~experiments.studies.frto`: F-RTO [FRTO], Tables 1-3 and Figures 6-9.
- :mod:`~experiments.studies.netreno`: Net Reno [NETRENO], Tables 1-3 and Figure 1.
- :mod:`~experiments.studies.dbce`: the delay-based congestion estimators of [TCPDEBUG]
  ch. 4-5.

The drivers that users run (``python -m experiments.rdtcp_figures`` and the others) sit one
level up, in :mod:`experiments`.
"""
