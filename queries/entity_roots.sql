-- name: entity_roots
-- params: ids:ids, known_at:time
-- returns: id, root_id, root_name
-- Each entity with the entity it was merged into by :known_at (itself if none), and that one's name.
SELECT e.id, COALESCE(r.id, e.id) AS root_id, COALESCE(r.name, e.name) AS root_name
FROM entities AS e
LEFT JOIN entities AS r ON r.id = e.merged_into AND e.merged_at <= :known_at
WHERE e.id IN :ids
ORDER BY e.id
