-- name: claims_held_by_subjects
-- params: scope:str, roots:ids, predicates:ids, known_at:time
-- returns: claim_id, subject_id, subject_root, predicate, qualifiers, object_id, value, status, valid_from:time, valid_until:time, valid_from_precision, valid_until_precision, recorded_at:time, reason, contradicting
-- The claims of :scope about the entities :roots (or entities merged into them by :known_at)
-- with one of :predicates, in the version the ledger held at :known_at, unless retracted then:
-- the rivals a contradicted claim may have under a functional predicate.
SELECT c.id AS claim_id, c.subject_id,
       coalesce(CASE WHEN s.merged_at <= :known_at THEN s.merged_into END, s.id) AS subject_root,
       c.predicate, c.qualifiers, c.object_id, c.value, v.status, v.valid_from, v.valid_until,
       v.valid_from_precision, v.valid_until_precision, v.recorded_at, v.reason,
       (SELECT count(*) FROM evidence AS e
        WHERE e.claim_id = c.id AND e.relation = 'contradicts' AND e.recorded_at <= :known_at) AS contradicting
FROM entities AS s
JOIN claims AS c ON c.subject_id = s.id
JOIN claim_versions AS v ON v.claim_id = c.id
WHERE (s.id IN :roots OR (s.merged_into IN :roots AND s.merged_at <= :known_at))
  AND c.scope = :scope AND c.predicate IN :predicates
  AND v.recorded_at <= :known_at AND (v.invalidated_at IS NULL OR v.invalidated_at > :known_at)
  AND v.status <> 'retracted'
ORDER BY c.id
