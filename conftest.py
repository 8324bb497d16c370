# Root conftest: the shared fixtures of the claims live in fixtures/ (models and tokenizer in
# fixtures/models.py, timing measurements shared by several claims in fixtures/speed.py). The
# claimcheck plugin itself is loaded through its pytest11 entry point (pip install -e .).
import pytest

pytest_plugins = ["fixtures.models", "fixtures.speed"]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under ``pytest -n N --dist loadgroup`` (the README's test command): the tests of one
    ``xdist_group`` on one worker (claimcheck puts every timing claim in one, so each shared
    measurement is taken once), and every other test with the rest of its module, so that a
    module's fixtures (a project run that several tests read) are built once, not on each worker.
    xdist's own loadgroup sends an ungrouped test anywhere, as ``load`` does."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class GroupOrModule(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.rfind("@") > nodeid.rfind("]"):
                return nodeid.split("@")[-1]
            return nodeid.split("::", 1)[0]

    return GroupOrModule(config, log)
