-- name: evidence_for_claims
-- params: ids:ids, known_at:time
-- returns: id, claim_id, source_id, relation, excerpt, locator:json, page, recorded_at:time, anchor_method, anchor_score, stale_at:time
SELECT e.id, e.claim_id, e.source_id, e.relation, e.excerpt, e.locator, e.page, e.recorded_at,
       e.anchor_method, e.anchor_score, e.stale_at
FROM evidence AS e
WHERE e.claim_id IN :ids AND e.recorded_at <= :known_at
ORDER BY e.claim_id, e.id
