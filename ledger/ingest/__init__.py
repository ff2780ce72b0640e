"""Ingesters turn documents into source drafts; they never touch the database."""
