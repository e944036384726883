-- Sanity checks to run against the SCRATCH instance after a point-in-time restore.
-- Read-only. Compare each result with the expectations in references/verification.md.

-- 1. Latest write visible in the restored data (should be just before the target time).
SELECT max(updated_at) AS latest_write FROM public.orders;

-- 2. Row counts of the tables involved.
SELECT 'orders' AS table_name, count(*) FROM public.orders
UNION ALL
SELECT 'order_items', count(*) FROM public.order_items;

-- 3. Referential integrity: items whose order is missing (should be 0).
SELECT count(*) AS orphan_items
FROM public.order_items i
LEFT JOIN public.orders o ON o.id = i.order_id
WHERE o.id IS NULL;

-- 4. Replication and recovery state.
SELECT pg_is_in_recovery(), pg_last_xact_replay_timestamp();
