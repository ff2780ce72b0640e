"""Interchange with other tools: the shipped predicate vocabulary, Wikidata import, exports."""
