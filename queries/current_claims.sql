-- name: current_claims
-- params: scope:str, now:time
-- returns: claim_id, version_id, subject_id, subject, predicate, object_id, object, value, datatype, qualifiers, status, confidence, valid_from:time, valid_until:time, recorded_at:time, invalidated_at:time
-- The current view: the as-of view (claims_as_of.sql) with both times at :now, what
-- Ledger.claims() returns without times.
SELECT c.id AS claim_id, v.id AS version_id, c.subject_id, s.name AS subject, c.predicate, c.object_id, o.name AS object,
       c.value, c.datatype, c.qualifiers, v.status, v.confidence, v.valid_from, v.valid_until, v.recorded_at,
       v.invalidated_at
FROM claims AS c
JOIN claim_versions AS v ON v.claim_id = c.id
JOIN entities AS s ON s.id = c.subject_id
LEFT JOIN entities AS o ON o.id = c.object_id
WHERE c.scope = :scope
  AND v.recorded_at <= :now AND (v.invalidated_at IS NULL OR v.invalidated_at > :now)
  AND v.status <> 'retracted'
  AND (v.valid_from IS NULL OR v.valid_from <= :now)
  AND (v.valid_until IS NULL OR v.valid_until > :now)
ORDER BY c.subject_id, c.predicate, CASE WHEN v.valid_from IS NULL THEN 0 ELSE 1 END, v.valid_from, c.id
