"""The parts of the ``Ledger`` facade, one class per concern (graph, agents, interchange, safety).

``ledger.api.Ledger`` inherits them all; each only checks arguments and delegates to its modules.
"""
