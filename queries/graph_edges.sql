-- name: graph_edges
-- params: scope:str, valid_at:time, known_at:time, predicates:str, statuses:str
-- returns: claim_id, subject_id, object_id, predicate, status, confidence, valid_from:time, valid_until:time, recorded_at:time, invalidated_at:time
-- Every entity-valued claim of :scope in the time slice (the version held at :known_at, true at
-- :valid_at, status in :statuses), with both ends after merges as of :known_at: the edges of
-- the scope's graph. :predicates (NULL for all) and :statuses are lists written as one string
-- that starts and ends with a delimiter found in no name (",knows,owns,").
SELECT c.id AS claim_id,
       CASE WHEN s.merged_into IS NOT NULL AND s.merged_at <= :known_at THEN s.merged_into ELSE s.id END AS subject_id,
       CASE WHEN o.merged_into IS NOT NULL AND o.merged_at <= :known_at THEN o.merged_into ELSE o.id END AS object_id,
       c.predicate, v.status, v.confidence, v.valid_from, v.valid_until, v.recorded_at, v.invalidated_at
FROM claims AS c
JOIN claim_versions AS v ON v.claim_id = c.id
JOIN entities AS s ON s.id = c.subject_id
JOIN entities AS o ON o.id = c.object_id
WHERE c.scope = :scope AND c.object_id IS NOT NULL
  AND (CAST(:predicates AS VARCHAR(4000)) IS NULL
       OR replace(:predicates, substr(:predicates, 1, 1) || c.predicate || substr(:predicates, 1, 1), '') <> :predicates)
  AND v.recorded_at <= :known_at AND (v.invalidated_at IS NULL OR v.invalidated_at > :known_at)
  AND (v.valid_from IS NULL OR v.valid_from <= :valid_at)
  AND (v.valid_until IS NULL OR v.valid_until > :valid_at)
  AND replace(:statuses, substr(:statuses, 1, 1) || v.status || substr(:statuses, 1, 1), '') <> :statuses
ORDER BY c.id
