"""The write policy: what may be written (patterns, folding, settings, decisions) and its hooks on the write paths."""
