"""claimcheck's pytest glue: hooks and fixtures only, split by concern.

Registered through the ``pytest11`` entry point, so every pytest run in an environment where
claimcheck is installed has it; it writes the reports only in runs that collect a ``claims.toml``
registry. The work is done by the core modules of :mod:`claimcheck` (registry, recorder, report,
manuscript...). The LLM measurement kit registers its own pytest side (:mod:`claimcheck.llm.plugin`).

- :mod:`.state`: the run's state, one dataclass under one ``StashKey``;
- :mod:`.hookspecs`: the hooks a kit implements (the runner fingerprint, skip reasons);
- :mod:`.options`: options, markers, the run's set-up;
- :mod:`.items`: the items a registry yields (registry problems, placeholders, drift, audit);
- :mod:`.collection`: registries into items, markers from ``needs``, placeholders;
- :mod:`.running`: a claim test's set-up and its verdict;
- :mod:`.fixtures`: ``claim``, ``claims_registry``, ``claims_settings``, ``claims_profile``;
- :mod:`.reporting`: ``claims.json`` and the terminal summary;
- :mod:`.html`: pytest-html's hooks, registered only when pytest-html is active;
- :mod:`.parallel`: pytest-xdist.
"""

pytest_plugins = [
    "claimcheck.plugin.options",
    "claimcheck.plugin.collection",
    "claimcheck.plugin.running",
    "claimcheck.plugin.fixtures",
    "claimcheck.plugin.reporting",
]
