-- name: graph_entities
-- params: ids:ids, known_at:time
-- returns: id, root_id, scope, name, kind
-- Entities by id with the entity each had been merged into as of :known_at (root_id; itself
-- when not merged then), and that root's name and kind: the nodes of a graph.
SELECT e.id, r.id AS root_id, r.scope, r.name, r.kind
FROM entities AS e
JOIN entities AS r
  ON r.id = CASE WHEN e.merged_into IS NOT NULL AND e.merged_at <= :known_at THEN e.merged_into ELSE e.id END
WHERE e.id IN :ids
ORDER BY e.id
