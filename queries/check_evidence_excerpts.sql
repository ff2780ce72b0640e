-- name: check_evidence_excerpts
-- params: 
-- returns: evidence_id, claim_id, source_id
-- Evidence whose excerpt is not exactly its source's text at [char_start, char_end). Erased
-- evidence (excerpt '' at 0-0, left by Ledger.erase with its source's text gone) is not checked.
SELECT e.id AS evidence_id, e.claim_id, e.source_id
FROM evidence AS e
JOIN sources AS s ON s.id = e.source_id
WHERE NOT (e.excerpt = '' AND e.char_start = 0 AND e.char_end = 0)
  AND (e.char_start < 0 OR e.char_end <= e.char_start
       OR substr(s.text, e.char_start + 1, e.char_end - e.char_start) <> e.excerpt)
ORDER BY e.id
