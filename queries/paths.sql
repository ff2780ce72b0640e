-- name: paths
-- params: scope:str, source:int, target:int, max_depth:int, valid_at:time, known_at:time, direction:str, predicates:str, statuses:str
-- returns: depth, nodes, claims
-- Simple paths (no entity twice) from entity :source to entity :target (ids after merges) of at
-- most :max_depth claims, in the time slice of queries/neighbourhood.sql (same parameters).
-- nodes and claims are the path's entity ids and claim ids, comma-separated with a comma at each
-- end (",1,7,9,"). Rows come shortest first (the walk is breadth first) and lazily: a reader that
-- has enough stops the walk. Parallel claims between two entities make distinct paths.
WITH RECURSIVE walk(entity_id, depth, nodes, claims) AS (
    SELECT CAST(:source AS INTEGER), 0, CAST(',' || CAST(:source AS TEXT) || ',' AS TEXT), CAST(',' AS TEXT)
    UNION ALL
    SELECT CASE WHEN o.merged_into IS NOT NULL AND o.merged_at <= :known_at THEN o.merged_into ELSE o.id END,
           w.depth + 1,
           CAST(w.nodes || CAST(CASE WHEN o.merged_into IS NOT NULL AND o.merged_at <= :known_at THEN o.merged_into ELSE o.id END AS TEXT) || ',' AS TEXT),
           CAST(w.claims || CAST(c.id AS TEXT) || ',' AS TEXT)
    FROM walk AS w
    CROSS JOIN entities AS m
    CROSS JOIN claims AS c
    CROSS JOIN claim_versions AS v
    CROSS JOIN entities AS o
    WHERE w.depth < :max_depth AND w.entity_id <> :target
      AND (m.id = w.entity_id OR (m.merged_into = w.entity_id AND m.merged_at <= :known_at))
      AND (c.subject_id = CASE WHEN :direction <> 'in' THEN m.id END
           OR c.object_id = CASE WHEN :direction <> 'out' THEN m.id END)
      AND c.scope || '' = :scope
      AND (CAST(:predicates AS VARCHAR(4000)) IS NULL
           OR replace(:predicates, substr(:predicates, 1, 1) || c.predicate || substr(:predicates, 1, 1), '') <> :predicates)
      AND v.claim_id = c.id AND v.recorded_at <= :known_at
      AND (v.invalidated_at IS NULL OR v.invalidated_at > :known_at)
      AND (v.valid_from IS NULL OR v.valid_from <= :valid_at)
      AND (v.valid_until IS NULL OR v.valid_until > :valid_at)
      AND replace(:statuses, substr(:statuses, 1, 1) || v.status || substr(:statuses, 1, 1), '') <> :statuses
      AND o.id = CASE WHEN c.subject_id = m.id AND :direction <> 'in' THEN c.object_id ELSE c.subject_id END
      AND w.nodes NOT LIKE '%,' || CAST(CASE WHEN o.merged_into IS NOT NULL AND o.merged_at <= :known_at THEN o.merged_into ELSE o.id END AS TEXT) || ',%'
)
SELECT depth, nodes, claims FROM walk WHERE entity_id = :target AND depth > 0
