"""The run machinery under the figure drivers of :mod:`experiments`.

- :mod:`~experiments.studies.rdtcp.scenario`: one simulated run (``RunSpec`` -> ``RunResult``) of a seed's
  scenario; :mod:`~experiments.studies.frto.scenario` the same for 001's path.
- :mod:`~experiments.runner.gateways`: how a run configures the P4 gateways.
- :mod:`~experiments.runner.sweep`, :mod:`~experiments.runner.pool`,
  :mod:`~experiments.runner.worker`, :mod:`~experiments.runner.journal`: many runs on worker
  processes (PyPy where present), resumable.
- :mod:`~experiments.studies.rdtcp.report`, :mod:`~experiments.studies.rdtcp.plots`: CSV, JSON, Markdown and PNG.
- :mod:`~experiments.runner.cli`: the command-line conventions the drivers share.
"""
