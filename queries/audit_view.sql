-- name: audit_view
-- params: scope:str
-- returns: claim_id, version_id, subject_id, subject, predicate, object_id, object, value, datatype, qualifiers, status, confidence, valid_from:time, valid_until:time, recorded_at:time, invalidated_at:time
-- The audit view: every version of every claim of :scope in every status (retracted and
-- superseded included), oldest recorded first.
SELECT c.id AS claim_id, v.id AS version_id, c.subject_id, s.name AS subject, c.predicate, c.object_id, o.name AS object,
       c.value, c.datatype, c.qualifiers, v.status, v.confidence, v.valid_from, v.valid_until, v.recorded_at,
       v.invalidated_at
FROM claims AS c
JOIN claim_versions AS v ON v.claim_id = c.id
JOIN entities AS s ON s.id = c.subject_id
LEFT JOIN entities AS o ON o.id = c.object_id
WHERE c.scope = :scope
ORDER BY v.recorded_at, v.id
