-- name: neighbourhood
-- params: scope:str, start:int, depth:int, valid_at:time, known_at:time, direction:str, predicates:str, statuses:str
-- returns: depth, entity_id, claim_id, outgoing, other_id, predicate, status, confidence, valid_from, valid_until, recorded_at, invalidated_at
-- The claims walked from entity :start (an entity id after merges) out to :depth hops, in the
-- time slice: entity-valued claims of :scope in the version held at :known_at, true at
-- :valid_at, with a status in :statuses. One row per (walked entity, claim at it): entity_id
-- is the entity walked from, at distance depth (< :depth); other_id is the claim's other end
-- (after merges as of :known_at); outgoing = 1 when entity_id is the claim's subject.
-- :direction is 'out' (subject to object), 'in' (object to subject) or 'both'.
-- :predicates and :statuses are lists written as one string that starts and ends with a
-- delimiter character found in no name (",knows,owns,"); :predicates NULL means every predicate.
-- Value claims drop out at the join with the other end (o.id = NULL never holds). The scope test
-- is written so that SQLite does not take it as the index to search by (`|| ''`), but looks
-- claims up by their subject and object in ix_claims_entity_subject / ix_claims_entity_object.
-- Times come as stored (integer microseconds on SQLite, timestamptz on PostgreSQL): the reader
-- converts only the claims it keeps.
-- Rows come in walk order (breadth first) and the walk is lazy: a reader that stops early (node
-- limit, time budget) stops the walk. An entity reached at several distances is walked from at
-- each (the bound is :depth), so a claim may come twice; readers keep the first.
WITH RECURSIVE walk(entity_id, depth) AS (
    SELECT CAST(:start AS INTEGER), 0
    UNION
    SELECT CASE WHEN o.merged_into IS NOT NULL AND o.merged_at <= :known_at THEN o.merged_into ELSE o.id END,
           w.depth + 1
    FROM walk AS w
    CROSS JOIN entities AS m
    CROSS JOIN claims AS c
    CROSS JOIN claim_versions AS v
    CROSS JOIN entities AS o
    WHERE w.depth < :depth
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
)
SELECT w.depth, w.entity_id, c.id AS claim_id,
       CASE WHEN c.subject_id = m.id AND :direction <> 'in' THEN 1 ELSE 0 END AS outgoing,
       CASE WHEN o.merged_into IS NOT NULL AND o.merged_at <= :known_at THEN o.merged_into ELSE o.id END AS other_id,
       c.predicate, v.status, v.confidence, v.valid_from, v.valid_until, v.recorded_at, v.invalidated_at
FROM walk AS w
CROSS JOIN entities AS m
CROSS JOIN claims AS c
CROSS JOIN claim_versions AS v
CROSS JOIN entities AS o
WHERE w.depth < :depth
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
