-- name: contradicted_unresolved
-- params: scope:str, known_at:time
-- returns: claim_id, subject_id, subject_root, predicate, qualifiers, object_id, value, status, valid_from:time, valid_until:time, valid_from_precision, valid_until_precision, recorded_at:time, reason, contradicting
-- Which claims of :scope are contradicted and not resolved, as the ledger held them at :known_at:
-- those whose version then is disputed (a conflicting value from an independent source,
-- contradicting evidence, or an explicit dispute; confirming, superseding or retracting a claim
-- ends its dispute in a new version). `contradicting` counts its contradicting evidence known
-- then; `subject_root` is its subject after the merges made by then.
-- The disputed versions lead (SQLite keeps a CROSS JOIN's order): the partial index
-- ix_claim_versions_disputed holds only them, where starting from the scope's claims would look
-- up the versions of every claim in it.
SELECT c.id AS claim_id, c.subject_id,
       coalesce(CASE WHEN s.merged_at <= :known_at THEN s.merged_into END, s.id) AS subject_root,
       c.predicate, c.qualifiers, c.object_id, c.value, v.status, v.valid_from, v.valid_until,
       v.valid_from_precision, v.valid_until_precision, v.recorded_at, v.reason,
       (SELECT count(*) FROM evidence AS e
        WHERE e.claim_id = c.id AND e.relation = 'contradicts' AND e.recorded_at <= :known_at) AS contradicting
FROM claim_versions AS v
CROSS JOIN claims AS c
CROSS JOIN entities AS s
WHERE c.id = v.claim_id AND s.id = c.subject_id
  AND v.status = 'disputed' AND v.recorded_at <= :known_at
  AND (v.invalidated_at IS NULL OR v.invalidated_at > :known_at)
  AND c.scope = :scope
ORDER BY v.claim_id
