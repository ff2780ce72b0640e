-- name: links_for_claims
-- params: ids:ids, known_at:time
-- returns: kind, from_claim_id, to_claim_id, recorded_at:time, reason
SELECT l.kind, l.from_claim_id, l.to_claim_id, l.recorded_at, l.reason
FROM claim_links AS l
WHERE (l.from_claim_id IN :ids OR l.to_claim_id IN :ids) AND l.recorded_at <= :known_at
ORDER BY l.recorded_at, l.id
