# Root conftest: the shared fixtures of the claims live in fixtures/ (models and tokenizer in
# fixtures/models.py, timing measurements shared by several claims in fixtures/speed.py). The
# claimcheck plugin itself is loaded through its pytest11 entry point (pip install -e .).
pytest_plugins = ["fixtures.models", "fixtures.speed"]
