"""The run machinery under the studies and the drivers of :mod:`experiments`; it knows no paper.

- :mod:`~experiments.runner.spec`: what a run is (``RunSpec`` -> ``RunResult``) and the scenarios
  the studies register (``SCENARIOS``, ``register``), each with the function that runs it.
- :mod:`~experiments.runner.gateways`, :mod:`~experiments.runner.program`: how a run configures
  the P4 gateways, and the gateway program every run loads.
- :mod:`~experiments.runner.sweep`, :mod:`~experiments.runner.pool`,
  :mod:`~experiments.runner.worker`, :mod:`~experiments.runner.journal`: many runs on worker
  processes (PyPy where present), resumable.
- :mod:`~experiments.runner.report`, :mod:`~experiments.runner.plots`,
  :mod:`~experiments.runner.stats`: what every study's CSV, JSON and PNG files share.
- :mod:`~experiments.runner.cli`: the command-line conventions the drivers share.

Each study (:mod:`experiments.studies`) holds its scenario, checks, report and plots.
"""
