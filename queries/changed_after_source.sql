-- name: changed_after_source
-- params: scope:str, source_id:int
-- returns: change, claim_id, version_id, subject_id, subject, predicate, object_id, object, value, datatype, qualifiers, status, confidence, valid_from:time, valid_until:time, recorded_at:time, invalidated_at:time
-- Claims of :scope added or changed since source :source_id (of :scope) was recorded: each
-- version recorded at or after the source's recorded_at, as 'added' (the claim's first version)
-- or 'changed' (a later one: a new status, a closed interval, a retraction), oldest first.
SELECT CASE WHEN c.recorded_at >= x.recorded_at
             AND NOT EXISTS (SELECT 1 FROM claim_versions AS p WHERE p.claim_id = c.id AND p.id < v.id)
            THEN 'added' ELSE 'changed' END AS change,
       c.id AS claim_id, v.id AS version_id, c.subject_id, s.name AS subject, c.predicate, c.object_id, o.name AS object,
       c.value, c.datatype, c.qualifiers, v.status, v.confidence, v.valid_from, v.valid_until, v.recorded_at,
       v.invalidated_at
FROM claims AS c
JOIN claim_versions AS v ON v.claim_id = c.id
JOIN entities AS s ON s.id = c.subject_id
LEFT JOIN entities AS o ON o.id = c.object_id
JOIN sources AS x ON x.id = :source_id AND x.scope = c.scope
WHERE c.scope = :scope AND v.recorded_at >= x.recorded_at
ORDER BY v.recorded_at, v.id
