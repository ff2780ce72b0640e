-- name: relationships_during
-- params: scope:str, start:time, end:time, known_at:time
-- returns: claim_id, version_id, subject_id, subject, predicate, object_id, object, value, datatype, qualifiers, status, confidence, valid_from:time, valid_until:time, recorded_at:time, invalidated_at:time
-- Relationships (entity-valued claims) of :scope that held at some time in [:start, :end), as
-- held at :known_at: closed-open overlap, so one that ends at :start or begins at :end is out;
-- an unknown bound is open. Retracted claims and empty intervals never count.
SELECT c.id AS claim_id, v.id AS version_id, c.subject_id, s.name AS subject, c.predicate, c.object_id, o.name AS object,
       c.value, c.datatype, c.qualifiers, v.status, v.confidence, v.valid_from, v.valid_until, v.recorded_at,
       v.invalidated_at
FROM claims AS c
JOIN claim_versions AS v ON v.claim_id = c.id
JOIN entities AS s ON s.id = c.subject_id
LEFT JOIN entities AS o ON o.id = c.object_id
WHERE c.scope = :scope AND c.object_id IS NOT NULL
  AND v.recorded_at <= :known_at AND (v.invalidated_at IS NULL OR v.invalidated_at > :known_at)
  AND v.status <> 'retracted'
  AND (v.valid_from IS NULL OR v.valid_from < :end)
  AND (v.valid_until IS NULL OR v.valid_until > :start)
  AND (v.valid_from IS NULL OR v.valid_until IS NULL OR v.valid_from < v.valid_until)
ORDER BY c.subject_id, c.predicate, CASE WHEN v.valid_from IS NULL THEN 0 ELSE 1 END, v.valid_from, c.id
