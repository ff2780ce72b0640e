"""Interchange with other tools: exports (JSON Lines, RDF, Web Annotations) and imports."""
