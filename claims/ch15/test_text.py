"""C25, the price list: external data, not verifiable offline.

The chapter's own arithmetic on printed numbers (C04, C11.text, C15.text, C26, C27, C30.text) needs
no test module: each is a ``formula`` with ``conditions`` in claims.toml, evaluated by the core.
"""

import pytest


@pytest.mark.claim("C25")
def test_price_list_is_external(claim):
    claim.skip("external data: the price list (as of 2026-10) cannot be verified offline; "
               "its internal arithmetic is checked by the formulas of C04, C26 and C27", cause="external",
               source="Anthropic public API prices, as of 2026-10 (quoted by the chapter)", values=dict(claim.claim.values))
