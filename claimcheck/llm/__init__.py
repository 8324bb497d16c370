"""The LLM measurement kit: what the claims of a chapter about language models measure with.

Models and the real GPT-2 tokenizer (:mod:`.models`), where they run (:mod:`.device`), pretrained
weights (:mod:`.weights`), interleaved timing (:mod:`.timing`) and the speed measurements built on it
(:mod:`.speed`), KV-cache bytes (:mod:`.kvcache`), FLOPs (:mod:`.flops`), greedy decoding and the
tie-aware comparison of token streams (:mod:`.generation`), probabilities, surprisal and entropy
(:mod:`.lm`) and their bounds from printed probabilities (:mod:`claimcheck.formula`), causal-mask and prefix-reuse properties (:mod:`.properties`), an independent numpy
GPT-2 (:mod:`.numpy_gpt2`), the report's plots (:mod:`.plots`), the portable-LM lane
(:mod:`.portable_lm`) and the runner of a chapter's code listing (:mod:`.listing`).

Installed with the ``claims`` extra (torch, transformers, matplotlib); the core of claimcheck never
imports this package. Its pytest side (options, markers, skips) is :mod:`claimcheck.llm.pytest_kit` (registered in claims runs by :mod:`claimcheck.llm.plugin`).
"""
