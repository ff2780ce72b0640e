-- name: contradiction_resolutions
-- params: scope:str, known_at:time
-- returns: from_claim_id, to_claim_id, recorded_at:time, reason, actor
-- The contradictions of :scope resolved by :known_at: one `resolves` link from the claim kept to
-- each side it won against (to itself when the contradiction had one side), with who and why.
SELECT l.from_claim_id, l.to_claim_id, l.recorded_at, l.reason, l.actor
FROM claim_links AS l
WHERE l.scope = :scope AND l.kind = 'resolves' AND l.recorded_at <= :known_at
ORDER BY l.recorded_at, l.id
