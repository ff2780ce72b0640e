"""Interchange with other tools: the shipped predicate vocabulary, Wikidata import, and exports (JSON Lines, RDF, Web Annotations) with their re-import."""
