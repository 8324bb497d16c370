"""The LLM measurement kit: what the claims of a chapter about language models measure with.

One module per concern (models and tokenizer, device, weights, timing and speed, KV cache, FLOPs,
decoding, probabilities, properties, a numpy GPT-2, plots, the portable-LM lane, the listing
runner; the map is in CONTRIBUTING.md, the helpers in docs/kit.md). Installed with the ``claims``
extra (torch, transformers, matplotlib); the core never imports it. Its pytest side is
:mod:`.pytest_kit`, registered in claims runs by :mod:`.plugin`.
"""
