-- name: version_times
-- params: ids:ids, known_at:time
-- returns: claim_id, status, recorded_at:time, invalidated_at:time
-- When each version of the claims :ids recorded by :known_at began and ended, oldest first: how
-- long a claim has been disputed.
SELECT v.claim_id, v.status, v.recorded_at, v.invalidated_at
FROM claim_versions AS v
WHERE v.claim_id IN :ids AND v.recorded_at <= :known_at
ORDER BY v.claim_id, v.id
