-- name: stale_evidence
-- params: scope:str
-- returns: evidence_id, claim_id, source_id, relation, excerpt, stale_at:time, newer_source_id, claim_supported
-- Evidence whose quote vanished from a newer revision of its source (and has not come back in a
-- later one), with whether its claim still has supporting evidence in the newest revision of
-- some source.
-- The rows flagged stale lead (ix_evidence_stale_claim_id holds only them): SQLite keeps a CROSS
-- JOIN's order, and would otherwise search the evidence of every claim of the scope for them.
SELECT e.id AS evidence_id, e.claim_id, e.source_id, e.relation, e.excerpt, e.stale_at,
       (SELECT max(n.id) FROM sources AS n WHERE n.revision_of = e.source_id) AS newer_source_id,
       CASE WHEN EXISTS (SELECT 1 FROM evidence AS k
                         WHERE k.claim_id = e.claim_id AND k.relation = 'supports' AND k.stale_at IS NULL
                           AND NOT EXISTS (SELECT 1 FROM sources AS r WHERE r.revision_of = k.source_id))
            THEN 1 ELSE 0 END AS claim_supported
FROM evidence AS e
CROSS JOIN claims AS c
WHERE c.id = e.claim_id AND e.stale_at IS NOT NULL AND c.scope = :scope
  AND NOT EXISTS (SELECT 1 FROM evidence AS back WHERE back.reanchored_from = e.id)
ORDER BY e.claim_id, e.id
