"""The LLM measurement kit: what the claims of a chapter about language models measure with.

One module per concern (the map is in CONTRIBUTING.md, the helpers in docs/kit.md); installed with the
``claims`` extra; the core never imports it. Its pytest side is :mod:`.pytest_kit`, registered by
:mod:`.plugin`. Its modules import torch, transformers, matplotlib, safetensors, huggingface_hub
and filelock inside the functions that use them: start-up time (``pytest --help``, collection).
"""
