-- name: check_functional_overlap
-- params: 
-- returns: first_claim_id, second_claim_id, predicate, and both intervals with their precisions
--   (a_from, a_until, a_from_precision, a_until_precision, b_from, ...) and what each says
--   (a_object_id, a_value, a_datatype, b_...); the checker drops pairs that overlap only within the
--   windows of bounds known to the year (ledger.timeline.certain) and pairs whose values differ only
--   in spelling (30 and 30.0: ledger.claims.values.value_key)
-- Two current, undisputed claims of a functional predicate (declared cardinality one, or
-- undeclared with a value object) on the same subject and qualifiers whose valid intervals
-- overlap with different objects or values.
WITH current_claims AS (
  SELECT c.id, c.scope, c.predicate, c.qualifiers, c.object_id, c.value, c.datatype,
         coalesce(s.merged_into, s.id) AS subject_root, v.valid_from, v.valid_until,
         v.valid_from_precision, v.valid_until_precision
  FROM claims AS c
  JOIN claim_versions AS v ON v.claim_id = c.id AND v.invalidated_at IS NULL
  JOIN entities AS s ON s.id = c.subject_id
  LEFT JOIN predicates AS p ON p.name = c.predicate
  WHERE v.status NOT IN ('disputed', 'retracted')
    AND (v.valid_from IS NULL OR v.valid_until IS NULL OR v.valid_from < v.valid_until)
    AND (p.cardinality = 'one' OR (p.cardinality IS NULL AND c.object_id IS NULL))
)
SELECT a.id AS first_claim_id, b.id AS second_claim_id, a.predicate,
       a.valid_from AS a_from, a.valid_until AS a_until, a.valid_from_precision AS a_from_precision,
       a.valid_until_precision AS a_until_precision, b.valid_from AS b_from, b.valid_until AS b_until,
       b.valid_from_precision AS b_from_precision, b.valid_until_precision AS b_until_precision,
       a.object_id AS a_object_id, a.value AS a_value, a.datatype AS a_datatype,
       b.object_id AS b_object_id, b.value AS b_value, b.datatype AS b_datatype
FROM current_claims AS a
JOIN current_claims AS b
  ON b.scope = a.scope AND b.subject_root = a.subject_root AND b.predicate = a.predicate
 AND b.qualifiers = a.qualifiers AND b.id > a.id
WHERE (a.object_id IS DISTINCT FROM b.object_id OR a.value IS DISTINCT FROM b.value)
  AND (a.valid_until IS NULL OR b.valid_from IS NULL OR b.valid_from < a.valid_until)
  AND (b.valid_until IS NULL OR a.valid_from IS NULL OR a.valid_from < b.valid_until)
ORDER BY a.id, b.id
