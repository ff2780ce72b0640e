-- name: evidence_with_sources
-- params: ids:ids, known_at:time
-- returns: id, claim_id, relation, excerpt, locator:json, page, recorded_at:time, stale_at:time, source_id, title, uri, publisher, published_at:time, kind
-- The evidence of the claims :ids recorded by :known_at, each with what a reader needs of its
-- source (title, URI, publisher, publication date) and not its text.
SELECT e.id, e.claim_id, e.relation, e.excerpt, e.locator, e.page, e.recorded_at, e.stale_at,
       s.id AS source_id, s.title, s.uri, s.publisher, s.published_at, s.kind
FROM evidence AS e
JOIN sources AS s ON s.id = e.source_id
WHERE e.claim_id IN :ids AND e.recorded_at <= :known_at
ORDER BY e.claim_id, e.id
