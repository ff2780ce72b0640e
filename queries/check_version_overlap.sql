-- name: check_version_overlap
-- params: 
-- returns: claim_id, first_version_id, second_version_id
-- Two versions of one claim whose system-time intervals overlap (empty intervals never do).
SELECT a.claim_id, a.id AS first_version_id, b.id AS second_version_id
FROM claim_versions AS a
JOIN claim_versions AS b ON b.claim_id = a.claim_id AND b.id > a.id
WHERE (a.invalidated_at IS NULL OR a.recorded_at < a.invalidated_at)
  AND (b.invalidated_at IS NULL OR b.recorded_at < b.invalidated_at)
  AND (a.invalidated_at IS NULL OR b.recorded_at < a.invalidated_at)
  AND (b.invalidated_at IS NULL OR a.recorded_at < b.invalidated_at)
ORDER BY a.claim_id, a.id, b.id
