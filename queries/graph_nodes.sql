-- name: graph_nodes
-- params: scope:str, known_at:time
-- returns: id, name, kind
-- The entities of :scope that existed at :known_at and had not been merged into another by then.
SELECT e.id, e.name, e.kind
FROM entities AS e
WHERE e.scope = :scope AND e.created_at <= :known_at
  AND (e.merged_into IS NULL OR e.merged_at > :known_at)
ORDER BY e.id
