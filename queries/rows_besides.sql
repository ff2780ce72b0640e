-- name: rows_besides
-- params: actor:str, source_uri:str, entity:str
-- returns: kind, total
-- How many rows of each kind, in every scope, are other than the actor's claims and claim
-- versions and, in the default scope, the source at source_uri and the entity (and alias) named
-- entity. Predicates and tombstones all count.
SELECT kind, total FROM (
    SELECT 1 AS ordinal, 'sources' AS kind, count(*) AS total FROM sources
    WHERE scope <> 'default' OR uri IS DISTINCT FROM :source_uri
    UNION ALL
    SELECT 2, 'entities', count(*) FROM entities WHERE scope <> 'default' OR name <> :entity
    UNION ALL
    SELECT 3, 'aliases', count(*) FROM aliases WHERE scope <> 'default' OR alias <> :entity
    UNION ALL
    SELECT 4, 'claims', count(*) FROM claims WHERE actor IS DISTINCT FROM :actor
    UNION ALL
    SELECT 5, 'claim versions', count(*) FROM claim_versions WHERE actor IS DISTINCT FROM :actor
    UNION ALL
    SELECT 6, 'predicates', count(*) FROM predicates
    UNION ALL
    SELECT 7, 'tombstones', count(*) FROM tombstones
) AS totals
ORDER BY ordinal
