-- name: active_claims
-- params: scope:str, at:time
-- returns: claim_id, version_id, subject_id, subject, predicate, object_id, object, value, datatype, qualifiers, status, confidence, valid_from:time, valid_until:time, recorded_at:time, invalidated_at:time
-- The claims of :scope active at :at: held then (current version at :at), true then, and
-- standing (reported, confirmed or disputed: neither superseded nor retracted).
SELECT c.id AS claim_id, v.id AS version_id, c.subject_id, s.name AS subject, c.predicate, c.object_id, o.name AS object,
       c.value, c.datatype, c.qualifiers, v.status, v.confidence, v.valid_from, v.valid_until, v.recorded_at,
       v.invalidated_at
FROM claims AS c
JOIN claim_versions AS v ON v.claim_id = c.id
JOIN entities AS s ON s.id = c.subject_id
LEFT JOIN entities AS o ON o.id = c.object_id
WHERE c.scope = :scope
  AND v.recorded_at <= :at AND (v.invalidated_at IS NULL OR v.invalidated_at > :at)
  AND v.status IN ('reported', 'confirmed', 'disputed')
  AND (v.valid_from IS NULL OR v.valid_from <= :at)
  AND (v.valid_until IS NULL OR v.valid_until > :at)
ORDER BY c.subject_id, c.predicate, CASE WHEN v.valid_from IS NULL THEN 0 ELSE 1 END, v.valid_from, c.id
