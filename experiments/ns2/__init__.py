"""ns-2 2.35 as the lab's outside reference for TCP.

- ``trace``: ns-2's packet trace format (the ns Manual, "Trace and Monitoring Support") and the
  conversion the validation suites apply to it before comparing (their ``getrc``, ``set_flow_id``
  and ``raw2xg`` steps, written here from those tools' documented behaviour), plus the
  comparison of two xgraph point lists.
- ``install``: where the installed ``ns`` and the ``ns2-examples`` suites are, and running one
  suite test in ns-2 itself.
- ``corpus``: ns-2's TCP validation tests built in our simulator (``corpus_tests`` lists them).
- ``tcl``, ``runs``: a RunSpec written as an ns-2 script, run in ns-2, read back as our rows.
"""
