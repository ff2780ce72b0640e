"""Text for evidence, pure (no database, no I/O): ``normalize`` (what a quote and a stored text
are compared as, scripts without spaces), ``matchtext`` (a text prepared for search), ``quotes``
(locate a quote), ``fuzzy`` (approximate matching) and ``reanchor`` (find evidence again in a
new revision)."""
