# A small "run it yourself" listing written for claimcheck's own tests (not the chapter's code).
# It uses the call pattern older transformers documented: the KV cache is passed back in with
# `past_key_values=` and read from `out.past_key_values`, which transformers 5 deprecates in
# favour of `cache`. The harness must report that as API drift, and read the numbers it prints.
import time

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("gpt2")
lm = AutoModelForCausalLM.from_pretrained("gpt2").eval()
with open("notes.txt", encoding="utf-8") as notes:
    ids = tokenizer(notes.read(), return_tensors="pt").input_ids[:, :48]

with torch.no_grad():
    for cached in (True, False):
        start = time.perf_counter()
        lm.generate(ids[:, :8], max_new_tokens=12, do_sample=False, use_cache=cached, pad_token_id=50256)
        print(f"生成 12 个 token（cache={cached}）耗时 {time.perf_counter() - start:.3f} s")

    lm(ids)
    start = time.perf_counter()
    lm(ids)
    prefill = time.perf_counter() - start

    step = lm(ids[:, :1], use_cache=True)
    kv = step.past_key_values
    start = time.perf_counter()
    for pos in range(1, 48):
        step = lm(ids[:, pos : pos + 1], past_key_values=kv, use_cache=True)
        kv = step.past_key_values
    decode = time.perf_counter() - start

print(f"预填充 48 个 token：{48 / prefill:.0f} token/s")
print(f"逐个解码 47 个 token：{47 / decode:.0f} token/s，相差 {(48 / prefill) / (47 / decode):.1f} 倍")
