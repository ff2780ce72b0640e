-- name: graph_claims
-- params: ids:ids, scope:str, known_at:time
-- returns: claim_id, subject_id, object_id, predicate, status, confidence, valid_from:time, valid_until:time, recorded_at:time, invalidated_at:time
-- Entity-valued claims of :scope by id as edges: the version held at :known_at, both ends
-- after merges as of :known_at.
SELECT c.id AS claim_id,
       CASE WHEN s.merged_into IS NOT NULL AND s.merged_at <= :known_at THEN s.merged_into ELSE s.id END AS subject_id,
       CASE WHEN o.merged_into IS NOT NULL AND o.merged_at <= :known_at THEN o.merged_into ELSE o.id END AS object_id,
       c.predicate, v.status, v.confidence, v.valid_from, v.valid_until, v.recorded_at, v.invalidated_at
FROM claims AS c
JOIN claim_versions AS v ON v.claim_id = c.id
JOIN entities AS s ON s.id = c.subject_id
JOIN entities AS o ON o.id = c.object_id
WHERE c.id IN :ids AND c.scope = :scope
  AND v.recorded_at <= :known_at AND (v.invalidated_at IS NULL OR v.invalidated_at > :known_at)
ORDER BY c.id
