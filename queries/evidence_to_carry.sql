-- name: evidence_to_carry
-- params: source_id:int
-- returns: id, claim_id, source_id, relation, excerpt, char_start, char_end, locator:json, stale_at:time
-- The evidence a new revision after :source_id must re-anchor: the rows citing it or any earlier
-- revision of it that no later row carried forward already (evidence cited on an old revision
-- after newer ones came is carried too). Rows flagged stale are among them: a quote that comes
-- back in a later revision supports its claim again.
WITH RECURSIVE chain(id) AS (
    SELECT CAST(:source_id AS INTEGER)
    UNION
    SELECT s.revision_of FROM sources AS s JOIN chain AS c ON s.id = c.id WHERE s.revision_of IS NOT NULL
)
SELECT e.id, e.claim_id, e.source_id, e.relation, e.excerpt, e.char_start, e.char_end, e.locator, e.stale_at
FROM evidence AS e
WHERE e.source_id IN (SELECT id FROM chain)
  AND NOT EXISTS (SELECT 1 FROM evidence AS later WHERE later.reanchored_from = e.id)
ORDER BY e.id
