-- name: check_unsupported_claims
-- params: 
-- returns: claim_id, status
-- Current claims that are not retracted but have no supporting evidence row.
SELECT c.id AS claim_id, v.status
FROM claims AS c
JOIN claim_versions AS v ON v.claim_id = c.id AND v.invalidated_at IS NULL
WHERE v.status <> 'retracted'
  AND NOT EXISTS (SELECT 1 FROM evidence AS e WHERE e.claim_id = c.id AND e.relation = 'supports')
ORDER BY c.id
