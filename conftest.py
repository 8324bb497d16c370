# Root conftest: the shared fixtures of the claims live in fixtures/ (models, tokenizer,
# measurements reused by several claims). The claimcheck plugin itself is loaded through its
# pytest11 entry point (pip install -e .).
pytest_plugins = ["fixtures.models"]
