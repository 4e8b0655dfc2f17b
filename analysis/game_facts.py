"""Game facts the analyses need, read from the dataset itself (manifest ``facts``,
written by the game's adapter): the annex kinds behind ``annex_mask`` in bit order (the card
table as played, so an edited card is analysed as edited) and the official deck sizes (rule
BI-S2).  Nothing here re-derives them.
"""

from __future__ import annotations


def _facts(ds):
    """A dataset's facts; for a bare resolved config, the facts a run of it records."""
    if isinstance(ds, dict):
        from .dataset import manifest_facts

        return manifest_facts({"resolved": ds})
    return ds.facts


def annex_kinds(ds):
    """The annex kinds in ``annex_mask`` bit order.

    Parameters
    ----------
    ds : analysis.dataset.Dataset or dict
        A Bloody Inn dataset (its ``facts``: ``cards`` and ``annex_bits``), or its resolved
        config (the facts a run of it records, from the game's adapter).

    Returns
    -------
    list of dict
        ``{"bit", "id", "annex", "rank", "colour"}`` per kind.
    """
    facts = _facts(ds)
    by_id = {c["id"]: c for c in facts.get("cards", ())}
    return [
        {
            "bit": i,
            "id": cid,
            "annex": by_id[cid]["annex"],
            "rank": int(by_id[cid]["rank"]),
            "colour": by_id[cid]["colour"],
        }
        for i, cid in enumerate(facts.get("annex_bits", ()))
    ]


def official_deck(ds, length, players, deck_copies=1):
    """Official deck size for a length and player count (BI-S2, from the dataset's facts),
    or None (also for a deck built from several copies of the travellers, which no official
    setup uses)."""
    table = _facts(ds).get("official_deck_size", {}).get(str(length))
    if table is None or str(players) not in table or int(deck_copies or 1) != 1:
        return None
    return int(table[str(players)])
