-- name: check_claims_without_current_version
-- params: 
-- returns: claim_id, current_versions
-- Every claim has exactly one current version (invalidated_at IS NULL).
SELECT c.id AS claim_id,
       (SELECT count(*) FROM claim_versions AS v WHERE v.claim_id = c.id AND v.invalidated_at IS NULL)
         AS current_versions
FROM claims AS c
WHERE (SELECT count(*) FROM claim_versions AS v WHERE v.claim_id = c.id AND v.invalidated_at IS NULL) <> 1
ORDER BY c.id
