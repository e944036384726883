"""Search: what the build indexes and what the loader and the browser query.

:mod:`.stemmer`, :mod:`.terms` and :mod:`.bm25` use the standard library only (the loader
ranks with them exactly as the build indexed); :mod:`.lunr_index` writes the browser's lunr
index (it needs the ``lunr`` package).
"""
