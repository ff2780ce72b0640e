-- name: check_scope_leaks
-- params: 
-- returns: kind, id, scope, other_scope
-- Rows that reference a row of another scope.
SELECT 'evidence source' AS kind, e.id, c.scope, s.scope AS other_scope
FROM evidence AS e JOIN claims AS c ON c.id = e.claim_id JOIN sources AS s ON s.id = e.source_id
WHERE s.scope <> c.scope
UNION ALL
SELECT 'claim subject', c.id, c.scope, x.scope FROM claims AS c JOIN entities AS x ON x.id = c.subject_id
WHERE x.scope <> c.scope
UNION ALL
SELECT 'claim object', c.id, c.scope, x.scope FROM claims AS c JOIN entities AS x ON x.id = c.object_id
WHERE x.scope <> c.scope
UNION ALL
SELECT 'alias entity', a.id, a.scope, x.scope FROM aliases AS a JOIN entities AS x ON x.id = a.entity_id
WHERE x.scope <> a.scope
UNION ALL
SELECT 'merged entity', x.id, x.scope, m.scope FROM entities AS x JOIN entities AS m ON m.id = x.merged_into
WHERE m.scope <> x.scope
UNION ALL
SELECT 'link', l.id, l.scope, c.scope FROM claim_links AS l
JOIN claims AS c ON c.id = l.from_claim_id OR c.id = l.to_claim_id
WHERE c.scope <> l.scope
ORDER BY 1, 2
