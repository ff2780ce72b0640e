"""Claims: drafts, the value codec, the lifecycle rules (pure) and the write path that applies them."""
