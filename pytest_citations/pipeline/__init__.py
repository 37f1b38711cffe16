"""The pipeline that drives the stages: fetch → passages → retrieval → judge → guard →
aggregate, for many claims at once.

- :mod:`.settings`: what the engine needs to know (secrets masked), read from the
  environment for the backends a run uses;
- :mod:`.backends`: fetchers and judges by name, and the variables each declares;
- :mod:`.verifier`: the asynchronous verifier (one fetch per URL, one judge call per
  identical request), with :mod:`.claimwork` (what it keeps per claim), :mod:`.sharing`
  (work shared across a run) and :mod:`.aggregate` (a claim's label from its citations, A1);
- :mod:`.retrieving`: the passages of a claim against a page, recalled from the recording
  (:mod:`.recall`) or chosen by :mod:`.model`, retrieval's model side, built on first need;
- :mod:`.voting`: the judge's votes on one citation;
- :mod:`.sync`: a synchronous face for it;
- :mod:`.audit`: the SQLite audit index (S1).
"""
