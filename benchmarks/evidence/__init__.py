"""Research on what the judge is handed (the whole evidence at equal cost): every route
measured against WiCE dev and XQuAD dev, run as ``python -m benchmarks.evidence``.

Nothing here changes the engine: the routes read the engine's passages, BM25 and embeddings
and choose, under a word budget, the slices of the page the judge would receive. The chosen
route is self-contained in :mod:`benchmarks.evidence.route` so that it can be ported.
"""
