"""The GPU path, exercised on a CPU: device selection, dtype choice, the GPU fingerprint, skip reasons.

CUDA is simulated by patching ``torch.cuda`` (nothing here touches a GPU); the one real CUDA
measurement, C34, runs only on a GPU runner (claims/ch15/test_gpu.py); the read/write measurement
it shares with C05 is tested on the CPU in tests/test_speed.py.
"""

import json
import sys
from types import SimpleNamespace

import pytest
import torch

from claimcheck.llm import device as dev
from claimcheck.llm import fingerprint
from tests.claimkit import claims_project

H100 = SimpleNamespace(name="NVIDIA H100 80GB HBM3", total_memory=85_520_809_984, major=9, minor=0)


@pytest.fixture
def fake_cuda(monkeypatch):
    """torch sees two CUDA GPUs (H100s), CUDA 12.6, driver 550.54.15."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: H100)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i: H100.name)
    monkeypatch.setattr(torch.version, "cuda", "12.6")
    monkeypatch.setattr(fingerprint, "nvidia_driver_version", lambda: "550.54.15")


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.version, "cuda", None)


# --- device selection -----------------------------------------------------------------------------
def test_auto_picks_the_gpu_when_there_is_one(fake_cuda):
    assert dev.select_device("auto") == torch.device("cuda", 0)
    assert dev.select_device(None) == torch.device("cuda", 0)
    assert dev.select_device("cuda:1") == torch.device("cuda", 1)
    assert dev.select_device("cpu") == torch.device("cpu")
    assert dev.describe_device(torch.device("cuda", 1)) == "cuda:1 (NVIDIA H100 80GB HBM3)"


def test_auto_falls_back_to_cpu(no_cuda):
    assert dev.select_device("auto") == torch.device("cpu")
    assert dev.describe_device(torch.device("cpu")) == "cpu"


def test_asking_for_cuda_without_it_is_an_error_that_says_why(no_cuda):
    with pytest.raises(
        dev.DeviceError,
        match=r"device 'cuda' requested, but this runner has none .*is False: "
        r"torch .* is a CPU-only build",
    ):
        dev.select_device("cuda")


def test_gpu_index_out_of_range(fake_cuda):
    with pytest.raises(
        dev.DeviceError, match=r"'cuda:2' requested, but torch sees 2 CUDA GPU\(s\) \(cuda:0..cuda:1\)"
    ):
        dev.select_device("cuda:2")


@pytest.mark.parametrize("bad", ["gpu", "cuda:", "cuda:x", "CPU", "mps"])
def test_unknown_device_names(bad):
    with pytest.raises(
        dev.DeviceError, match=rf"unknown device '{bad}'.*\(choose one of auto, cpu, cuda, cuda:N\)"
    ):
        dev.select_device(bad)


def test_no_gpu_reason_names_a_cuda_build_without_a_gpu(monkeypatch):
    monkeypatch.setattr(torch.version, "cuda", "12.6")
    assert "is built for CUDA 12.6 but finds no usable GPU or driver" in dev.no_gpu_reason()


# --- fingerprint ----------------------------------------------------------------------------------
def test_fingerprint_records_the_gpu(fake_cuda):
    fp = fingerprint.core.runner_fingerprint() | fingerprint.kit_fields()
    assert fp["gpu"] == {
        "name": "NVIDIA H100 80GB HBM3",
        "memory_bytes": 85_520_809_984,
        "capability": "9.0",
        "count": 2,
        "cuda": "12.6",
        "driver": "550.54.15",
    }
    assert "NVIDIA H100 80GB HBM3" in fingerprint.describe(fp)
    json.dumps(fp)


def test_fingerprint_without_gpu(no_cuda):
    fp = fingerprint.core.runner_fingerprint() | fingerprint.kit_fields()
    assert fp["gpu"] is None and "no GPU" in fingerprint.describe(fp)


def test_gpu_info_is_none_without_torch(monkeypatch):
    """A core-only install: no torch, so no GPU to describe (None, not an ImportError)."""
    monkeypatch.setitem(sys.modules, "torch", None)
    assert fingerprint.gpu_info() is None


def test_kit_fields_without_torch_name_every_field(monkeypatch):
    """No torch: the kit's fields are all there, torch's own ones None, in the order written."""
    monkeypatch.setitem(sys.modules, "torch", None)
    fields = fingerprint.kit_fields()
    assert list(fields) == ["torch", "transformers", "torch_threads", "cpu_capability", "gpu"]
    assert fields["torch_threads"] is None and fields["cpu_capability"] is None and fields["gpu"] is None


def test_the_fingerprint_names_the_threads_a_worker_measured_with(monkeypatch):
    """Under xdist the controller writes the fingerprint: ``torch_threads`` is the count the workers
    decided and measured with (``threads``), not the controller's own torch default."""
    from claimcheck.llm import pytest_kit

    state = SimpleNamespace(kit={})
    monkeypatch.setattr(pytest_kit, "run_state", lambda config: state)
    monkeypatch.setattr(pytest_kit, "settings_of", lambda config: SimpleNamespace(weights_shapes="check"))
    monkeypatch.setattr(pytest_kit, "weights_of", lambda config: None)
    monkeypatch.setattr(pytest_kit, "weights_record", lambda weights, shapes: {})
    decided = {"setting": "auto", "threads": torch.get_num_threads() + 1, "why": "a worker's"}
    worker = SimpleNamespace(config=None, workeroutput={pytest_kit.THREADS_OUTPUT_KEY: decided})
    pytest_kit.pytest_testnodedown(worker, None)
    fp: dict = {}
    pytest_kit.pytest_claimcheck_runner_fingerprint(None, fp)  # type: ignore[arg-type]
    assert fp["threads"] == decided and fp["torch_threads"] == decided["threads"]


@pytest.mark.parametrize(
    "line, version",
    [
        (
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024",
            "550.54.15",
        ),
        ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build", "570.86.15"),
        ("something else", None),
    ],
)
def test_driver_version_from_proc_when_nvidia_smi_is_missing(tmp_path, monkeypatch, line, version):
    monkeypatch.setenv("PATH", str(tmp_path))  # no nvidia-smi on PATH
    proc = tmp_path / "version"
    proc.write_text(line + "\nGCC version: gcc 12\n")
    assert fingerprint.nvidia_driver_version(str(proc)) == version
    assert fingerprint.nvidia_driver_version(str(tmp_path / "absent")) is None


# --- the plugin: skip reasons, --claims-device, the claims_device fixture ------------------------
REGISTRY = """
[[claims]]
id = "C34"
title = "read over write on a GPU"
stated = ""
unit = "x"
locator = "loc"
tolerance = ">=10"
needs = ["arch", "time", "gpu"]
"""

TESTS = """
import pytest

@pytest.mark.claim("C34")
def test_c34(claim, claims_device):
    assert claims_device.type == "cuda"
    claim.check(25.0, device=str(claims_device))
"""


@pytest.fixture
def gpu_project(pytester, monkeypatch):
    return claims_project(pytester, REGISTRY, {"test_gpu.py": TESTS}, monkeypatch=monkeypatch)


def _c34(project):
    report = project.report()
    return report["claims"][0], report.doc


def test_gpu_claim_skipped_with_the_reason_on_a_cpu_runner(gpu_project, no_cuda):
    gpu_project.run().assert_outcomes(skipped=1)
    c34, doc = _c34(gpu_project)
    assert c34["outcome"] == "skipped"
    assert c34["reason"].startswith(
        "needs a CUDA GPU; this runner has none (torch.cuda.is_available() is False"
    )
    assert doc["settings"]["device"] == "auto"


def test_gpu_claim_runs_where_torch_sees_cuda(gpu_project, fake_cuda):
    gpu_project.run().assert_outcomes(passed=1)
    c34, doc = _c34(gpu_project)
    assert c34["outcome"] == "passed" and c34["details"]["device"] == "cuda:0"
    assert (
        doc["runner"]["gpu"]["name"] == "NVIDIA H100 80GB HBM3"
        and doc["runner"]["gpu"]["driver"] == "550.54.15"
    )


def test_claims_device_cpu_skips_gpu_claims_even_with_a_gpu(gpu_project, fake_cuda):
    gpu_project.run("--claims-device", "cpu").assert_outcomes(skipped=1)
    c34, doc = _c34(gpu_project)
    assert c34["reason"] == "needs a CUDA GPU; this run was told to use the CPU (--claims-device: cpu)"
    assert doc["settings"]["device"] == "cpu"


def test_claims_device_cuda_without_cuda_fails_the_run(gpu_project, no_cuda):
    result = gpu_project.run("--claims-device", "cuda")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*claimcheck: --claims-device cuda: device 'cuda' requested, but this runner has none*"]
    )


def test_bad_device_setting_names_its_source(gpu_project, monkeypatch):
    monkeypatch.setenv("CLAIMCHECK_DEVICE", "gpu")
    result = gpu_project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*claimcheck: CLAIMCHECK_DEVICE=gpu: unknown device 'gpu'*"])


def test_a_gpu_claims_fixtures_are_not_set_up_where_it_is_skipped(pytester, no_cuda, monkeypatch):
    """The skip comes before the fixtures: a CPU-only runner never pays for a GPU claim's measurement."""
    test = """
        import pytest

        @pytest.fixture
        def expensive():
            raise AssertionError("the GPU claim's fixture was set up on a CPU-only runner")

        @pytest.mark.claim("C34")
        def test_c34(claim, expensive):
            claim.check(25.0)
    """
    project = claims_project(pytester, REGISTRY, {"test_gpu.py": test}, monkeypatch=monkeypatch)
    project.run().assert_outcomes(skipped=1)
    assert _c34(project)[0]["reason"].startswith("needs a CUDA GPU")
