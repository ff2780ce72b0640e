"""``python -m ledger`` runs the command line."""

from ledger.cli import app

app()
