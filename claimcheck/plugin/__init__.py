"""claimcheck's pytest glue: hooks and fixtures only, split by concern.

Registered through the ``pytest11`` entry point, so every pytest run in an environment where
claimcheck is installed loads it; but it acts only in a claims run (a ``claims.toml`` registry
governs the run's arguments, or the run opts in: :func:`claimcheck.plugin.options.claims_run`).
In any other run only :mod:`.options` is loaded, and it registers nothing: no report hooks, no
markers, no fixtures, no torch, no ``CLAIMCHECK_*`` validation, no files. The work is done by the
core modules of :mod:`claimcheck` (registry, recorder, report, manuscript...). The LLM measurement
kit registers its own pytest side (:mod:`claimcheck.llm.plugin`), inert on the same decision.

- :mod:`.state`: the run's state, one dataclass under one ``StashKey``;
- :mod:`.hookspecs`: the hooks a kit implements (the runner fingerprint, skip reasons);
- :mod:`.options`: options, the decision whether this is a claims run, the run's set-up;
- :mod:`.items`: the items a registry yields (registry problems, placeholders, drift, audit);
- :mod:`.collection`: registries into items, markers from ``needs``, placeholders;
- :mod:`.running`: a claim test's set-up and its verdict;
- :mod:`.fixtures`: ``claim``, ``claims_registry``, ``claims_settings``;
- :mod:`.reporting`: ``claims.json`` and the terminal summary;
- :mod:`.html`: pytest-html's hooks, registered only when pytest-html is active;
- :mod:`.parallel`: pytest-xdist.
"""

# Only the options and the decision; the rest (options.GLUE) is registered in a claims run.
pytest_plugins = ["claimcheck.plugin.options"]
